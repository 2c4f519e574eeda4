// Package safetensors writes and reads named tensors in the safetensors
// format (https://github.com/huggingface/safetensors), so that gtformer's
// weights and optimiser checkpoints open in Python, and BERT/SciBERT weights
// published on the Hugging Face hub open here.
//
// # Format
//
//	bytes 0..8      N, the header length, uint64 little-endian
//	bytes 8..8+N    JSON header, padded with spaces to a multiple of 8:
//	                {"__metadata__": {"key": "value", ...},
//	                 "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
//	bytes 8+N..     data section: every tensor's raw little-endian bytes,
//	                row-major, contiguous, with data_offsets relative to the
//	                start of the data section
//
// The writer lays tensors out in the order given, back to back, and pads the
// header with spaces as the reference implementation does, so the data
// section starts 8-byte aligned. The reader accepts any file the reference
// implementation accepts (tensors in any order of offsets, unpadded headers)
// and validates everything: header length against the file size and a
// 100 MB cap, JSON syntax, duplicate names, known dtypes, offsets that tile
// the data section exactly (no gap, no overlap, nothing left over), and
// shape × dtype size = byte length. It never panics on malformed input;
// errors are *FormatError values naming the file and the tensor.
//
// # Memory
//
// Open reads the header, validates it, then reads the whole data section
// with a single allocation (8-byte aligned). Float32 returns a view into
// that buffer, without copying, when the tensor is F32 and 4-byte aligned
// on a little-endian machine, and a converted copy otherwise (F64, F16,
// BF16, or unaligned F32 in foreign files). A memory-mapped reader would
// only replace how File.data is filled (syscall.Mmap of the file from offset
// 0, with data = mapping[8+N:] and Close unmapping); every accessor already
// works on that one byte slice, so a 440 MB BERT checkpoint would then cost
// no heap at all for F32 tensors.
package safetensors
