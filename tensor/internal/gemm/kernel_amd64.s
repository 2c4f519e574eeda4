//go:build amd64 && !purego

#include "textflag.h"

// The micro-kernels compute one tile of C = alpha·A·B + beta·C from packed
// panels: a holds k steps of MR values of A (one column of the tile's rows of
// op(A) per step), b holds k steps of NR values of B (one row of op(B) per
// step). The tile's MR×NR sums stay in vector registers for all k steps: each
// step loads NR values of B into two vectors, broadcasts each of the MR
// values of A and multiply-adds it into its row's two accumulators. Only at
// the end is C touched, row by row at stride ldc floats. With beta = 0, C is
// not read (BLAS semantics: C may hold NaN).

#include "avx512_amd64.h"

// ---------------------------------------------------------------------------
// AVX-512: MR = 12, NR = 32. Z0..Z23 hold the tile (row r in Z(2r), Z(2r+1)),
// Z24/Z25 the step's B row, Z26..Z31 the broadcasts.

// func kernel12x32(k int, a, b, c *float32, ldc int, alpha, beta float32)
TEXT ·kernel12x32(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI

	ZERO512

loop4_512:
	CMPQ CX, $4
	JLT  tail_512
	PREFETCHT0 1024(BX)
	STEP512(0, 0)
	PREFETCHT0 1088(BX)
	STEP512(48, 128)
	PREFETCHT0 1152(BX)
	STEP512(96, 256)
	PREFETCHT0 1216(BX)
	STEP512(144, 384)
	ADDQ $192, AX
	ADDQ $512, BX
	SUBQ $4, CX
	JMP  loop4_512

tail_512:
	TESTQ CX, CX
	JZ    store_512
	STEP512(0, 0)
	ADDQ  $48, AX
	ADDQ  $128, BX
	DECQ  CX
	JMP   tail_512

store_512:
	EPILOGUE512(40, 44, nobeta_512)

// ---------------------------------------------------------------------------
// AVX2 + FMA: MR = 6, NR = 16. Y0..Y11 hold the tile (row r in Y(2r),
// Y(2r+1)), Y12/Y13 the step's B row, Y14/Y15 the broadcasts.

#define ROW256(aoff, tmp, acc0, acc1) \
	VBROADCASTSS aoff(AX), tmp; \
	VFMADD231PS  Y12, tmp, acc0; \
	VFMADD231PS  Y13, tmp, acc1

#define STEP256(ao, bo) \
	VMOVUPS (bo)(BX), Y12; \
	VMOVUPS (bo+32)(BX), Y13; \
	ROW256(ao+0, Y14, Y0, Y1); \
	ROW256(ao+4, Y15, Y2, Y3); \
	ROW256(ao+8, Y14, Y4, Y5); \
	ROW256(ao+12, Y15, Y6, Y7); \
	ROW256(ao+16, Y14, Y8, Y9); \
	ROW256(ao+20, Y15, Y10, Y11)

// Y14 holds alpha, Y15 beta.
#define STORE256(acc0, acc1) \
	VMULPS  Y14, acc0, acc0; \
	VMULPS  Y14, acc1, acc1; \
	VMOVUPS acc0, (DI); \
	VMOVUPS acc1, 32(DI); \
	ADDQ    SI, DI

#define STOREBETA256(acc0, acc1) \
	VMULPS      Y14, acc0, acc0; \
	VMULPS      Y14, acc1, acc1; \
	VFMADD231PS (DI), Y15, acc0; \
	VFMADD231PS 32(DI), Y15, acc1; \
	VMOVUPS     acc0, (DI); \
	VMOVUPS     acc1, 32(DI); \
	ADDQ        SI, DI

// func kernel6x16(k int, a, b, c *float32, ldc int, alpha, beta float32)
TEXT ·kernel6x16(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop4_256:
	CMPQ CX, $4
	JLT  tail_256
	PREFETCHT0 512(BX)
	STEP256(0, 0)
	STEP256(24, 64)
	PREFETCHT0 576(BX)
	STEP256(48, 128)
	STEP256(72, 192)
	ADDQ $96, AX
	ADDQ $256, BX
	SUBQ $4, CX
	JMP  loop4_256

tail_256:
	TESTQ CX, CX
	JZ    store_256
	STEP256(0, 0)
	ADDQ  $24, AX
	ADDQ  $64, BX
	DECQ  CX
	JMP   tail_256

store_256:
	VBROADCASTSS alpha+40(FP), Y14
	MOVL         beta+44(FP), DX
	ANDL         $0x7fffffff, DX // beta = ±0: do not read C
	JZ           nobeta_256
	VBROADCASTSS beta+44(FP), Y15
	STOREBETA256(Y0, Y1)
	STOREBETA256(Y2, Y3)
	STOREBETA256(Y4, Y5)
	STOREBETA256(Y6, Y7)
	STOREBETA256(Y8, Y9)
	STOREBETA256(Y10, Y11)
	VZEROUPPER
	RET

nobeta_256:
	STORE256(Y0, Y1)
	STORE256(Y2, Y3)
	STORE256(Y4, Y5)
	STORE256(Y6, Y7)
	STORE256(Y8, Y9)
	STORE256(Y10, Y11)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// func transpose4x8(dst *float32, ldd int, src *float32, lds int, n int)
//
// Packing's transpose: dst[p·ldd + r] = src[r·lds + p] for rows r < 4 and
// p < n (n a multiple of 8), eight values of each row per iteration. The
// in-lane unpack/shuffle sequence transposes the two 4×4 blocks of the four
// rows at once: the low lanes give steps p…p+3, the high lanes p+4…p+7.
TEXT ·transpose4x8(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R10
	SHLQ $2, R10           // ldd in bytes
	MOVQ src+16(FP), AX
	MOVQ lds+24(FP), R8
	SHLQ $2, R8            // lds in bytes
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	JZ   tdone
	LEAQ (AX)(R8*1), BX    // row 1
	LEAQ (AX)(R8*2), DX    // row 2
	LEAQ (BX)(R8*2), SI    // row 3
	LEAQ (R10)(R10*2), R11 // 3·ldd bytes
	LEAQ (DI)(R10*4), R12  // step p+4

tloop:
	VMOVUPS   (AX), Y0
	VMOVUPS   (BX), Y1
	VMOVUPS   (DX), Y2
	VMOVUPS   (SI), Y3
	VUNPCKLPS Y1, Y0, Y4   // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y5   // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y6   // c0 d0 c1 d1 | …
	VUNPCKHPS Y3, Y2, Y7   // c2 d2 c3 d3 | …
	VSHUFPS   $0x44, Y6, Y4, Y0 // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS   $0xEE, Y6, Y4, Y1 // a1 b1 c1 d1 | a5 …
	VSHUFPS   $0x44, Y7, Y5, Y2 // a2 b2 c2 d2 | a6 …
	VSHUFPS   $0xEE, Y7, Y5, Y3 // a3 b3 c3 d3 | a7 …
	VMOVUPS   X0, (DI)
	VMOVUPS   X1, (DI)(R10*1)
	VMOVUPS   X2, (DI)(R10*2)
	VMOVUPS   X3, (DI)(R11*1)
	VEXTRACTF128 $1, Y0, (R12)
	VEXTRACTF128 $1, Y1, (R12)(R10*1)
	VEXTRACTF128 $1, Y2, (R12)(R10*2)
	VEXTRACTF128 $1, Y3, (R12)(R11*1)
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, DX
	ADDQ $32, SI
	LEAQ (DI)(R10*8), DI
	LEAQ (R12)(R10*8), R12
	DECQ CX
	JNZ  tloop
	VZEROUPPER

tdone:
	RET

// ---------------------------------------------------------------------------
// func copyPanel(dst *float32, src *float32, lds int, n int, w int)
//
// Packing's strided copy: dst[p·w + i] = src[p·lds + i] for i < w and p < n,
// for the panel widths w = 6, 12, 16 and 32 (other widths: nothing is done;
// the Go caller handles them). One short copy per step is where copy()'s
// call overhead would dominate.
TEXT ·copyPanel(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	SHLQ $2, R8
	MOVQ n+24(FP), CX
	MOVQ w+32(FP), DX
	TESTQ CX, CX
	JZ   cdone
	CMPQ DX, $32
	JEQ  c32
	CMPQ DX, $16
	JEQ  c16
	CMPQ DX, $12
	JEQ  c12
	CMPQ DX, $6
	JEQ  c6
	RET

c32:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    R8, SI
	ADDQ    $128, DI
	DECQ    CX
	JNZ     c32
	JMP     cdone

c16:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    R8, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     c16
	JMP     cdone

c12:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ    R8, SI
	ADDQ    $48, DI
	DECQ    CX
	JNZ     c12
	JMP     cdone

c6:
	VMOVUPS (SI), X0
	MOVQ    16(SI), AX
	VMOVUPS X0, (DI)
	MOVQ    AX, 16(DI)
	ADDQ    R8, SI
	ADDQ    $24, DI
	DECQ    CX
	JNZ     c6

cdone:
	VZEROUPPER
	RET
