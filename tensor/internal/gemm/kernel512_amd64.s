//go:build amd64 && !purego

#include "textflag.h"
#include "avx512_amd64.h"

// ---------------------------------------------------------------------------
// AVX-512 with A read in place: kernel12x32 for 12 rows of a row-major A
// that is not transposed (row r's step p at a + r·lda + p), so that the
// rows need no packing (a transpose of every 12-row panel). The same
// broadcasts and multiply-adds in the same order as kernel12x32 on the
// packed panel: the results are bit-identical. AX, R11 and R12 walk rows
// 0, 4 and 8; R9 is lda in bytes and R10 three times that.

// ROWSA512 points AX, R11 and R12 at rows 0, 4 and 8 of A (a, lda at FP
// offsets 8 and 16 in both kernels below).
#define ROWSA512 \
	MOVQ a+8(FP), AX; \
	MOVQ lda+16(FP), R9; \
	SHLQ $2, R9; \
	LEAQ (R9)(R9*2), R10; \
	LEAQ (AX)(R9*4), R11; \
	LEAQ (R11)(R9*4), R12

// func kernel12x32d(k int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32)
TEXT ·kernel12x32d(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	ROWSA512
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), SI
	SHLQ $2, SI

	ZERO512

loop4_d:
	CMPQ CX, $4
	JLT  tail_d
	PREFETCHT0 1024(BX)
	STEPD512(0, 0)
	PREFETCHT0 1088(BX)
	STEPD512(4, 128)
	PREFETCHT0 1152(BX)
	STEPD512(8, 256)
	PREFETCHT0 1216(BX)
	STEPD512(12, 384)
	ADDQ $16, AX
	ADDQ $16, R11
	ADDQ $16, R12
	ADDQ $512, BX
	SUBQ $4, CX
	JMP  loop4_d

tail_d:
	TESTQ CX, CX
	JZ    store_d
	STEPD512(0, 0)
	ADDQ  $4, AX
	ADDQ  $4, R11
	ADDQ  $4, R12
	ADDQ  $128, BX
	DECQ  CX
	JMP   tail_d

store_d:
	EPILOGUE512(48, 52, nobeta_d)

// kernel12x32s is kernel12x32 with both operands read at a stride: step p's
// 12 values of A at a + p·lda and its 32 values of B at b + p·ldb (floats).
// A transposed A (op(A)[i][p] = a[p·lda + i]) and an untransposed B are
// then read in place, unpacked; with lda = 12 or ldb = 32 a packed panel
// is read as kernel12x32 reads it. The same broadcasts and multiply-adds
// in the same order as kernel12x32: the results are bit-identical. R8 is
// lda and R9 ldb, in bytes.

// func kernel12x32s(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)
TEXT ·kernel12x32s(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R8
	SHLQ $2, R8
	MOVQ b+24(FP), BX
	MOVQ ldb+32(FP), R9
	SHLQ $2, R9
	MOVQ c+40(FP), DI
	MOVQ ldc+48(FP), SI
	SHLQ $2, SI

	ZERO512

loop_s:
	TESTQ CX, CX
	JZ    store_s
	PREFETCHT0 (BX)(R9*8)
	PREFETCHT0 64(BX)(R9*8)
	PREFETCHT0 (AX)(R8*8)
	STEP512(0, 0)
	ADDQ  R8, AX
	ADDQ  R9, BX
	DECQ  CX
	JMP   loop_s

store_s:
	EPILOGUE512(56, 60, nobeta_s)

// kernel12x32ds is kernel12x32d with B read at a stride: step p's 32 values
// of B at b + p·ldb (floats), so that an untransposed B is read in place,
// unpacked (ldb = 32: a packed panel). The same broadcasts and
// multiply-adds in the same order as kernel12x32: the results are
// bit-identical. R8 is ldb in bytes.

// func kernel12x32ds(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)
TEXT ·kernel12x32ds(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	ROWSA512
	MOVQ b+24(FP), BX
	MOVQ ldb+32(FP), R8
	SHLQ $2, R8
	MOVQ c+40(FP), DI
	MOVQ ldc+48(FP), SI
	SHLQ $2, SI

	ZERO512

loop4_ds:
	CMPQ CX, $4
	JLT  tail_ds
	PREFETCHT0 (BX)(R8*8)
	PREFETCHT0 64(BX)(R8*8)
	STEPD512(0, 0)
	ADDQ R8, BX
	PREFETCHT0 (BX)(R8*8)
	PREFETCHT0 64(BX)(R8*8)
	STEPD512(4, 0)
	ADDQ R8, BX
	PREFETCHT0 (BX)(R8*8)
	PREFETCHT0 64(BX)(R8*8)
	STEPD512(8, 0)
	ADDQ R8, BX
	PREFETCHT0 (BX)(R8*8)
	PREFETCHT0 64(BX)(R8*8)
	STEPD512(12, 0)
	ADDQ R8, BX
	ADDQ $16, AX
	ADDQ $16, R11
	ADDQ $16, R12
	SUBQ $4, CX
	JMP  loop4_ds

tail_ds:
	TESTQ CX, CX
	JZ    store_ds
	STEPD512(0, 0)
	ADDQ  $4, AX
	ADDQ  $4, R11
	ADDQ  $4, R12
	ADDQ  R8, BX
	DECQ  CX
	JMP   tail_ds

store_ds:
	EPILOGUE512(56, 60, nobeta_ds)
