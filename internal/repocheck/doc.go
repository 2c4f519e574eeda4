// Package repocheck holds tests of the repository itself rather than of a
// package: that no tracked file names a folder of the machine it was
// written on. It has no code of its own.
package repocheck
