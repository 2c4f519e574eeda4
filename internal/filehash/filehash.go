// Package filehash hashes a file's content: the one helper behind the
// model's recorded hashes, the checkpoints' manifests and the output
// folder's manifest.
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// SHA256 returns the size of the file at path and the hex SHA-256 of its
// content. Errors are the file system's, naming the path.
func SHA256(path string) (size int64, sum string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", &os.PathError{Op: "read", Path: path, Err: err}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Bytes returns the hex SHA-256 of b: what SHA256 returns for a file that
// holds b, for a caller that records a hash before writing the file.
func Bytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
