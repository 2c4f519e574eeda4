// Package blaslib loads a BLAS shared library (OpenBLAS above all) at run
// time, without cgo, and calls its single-precision matrix product.
//
// github.com/ebitengine/purego does the dlopen and the calls. In a
// CGO_ENABLED=0 build it brings its own minimal C runtime set-up, so such a
// binary is dynamically linked against the C library (libc, libdl,
// libpthread) though it needs no C compiler to build. With the build tag
// nodlopen, and outside linux/amd64 and linux/arm64, the package loads
// nothing (Supported is false) and does not import purego, so a
// CGO_ENABLED=0 binary is fully static and uses the pure-Go kernels only.
package blaslib
