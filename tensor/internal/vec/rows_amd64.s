//go:build amd64 && !purego

#include "textflag.h"

DATA rowsc<>+0(SB)/4, $0xff800000 // -Inf
GLOBL rowsc<>(SB), RODATA|NOPTR, $4

// func maxNaNAVX2(x *float32, n int) (mx float32, nan bool)
//
// mx = the largest of x[0:n] (n a multiple of 8; −Inf for n = 0), nan =
// whether one of them is NaN (then mx is meaningless). VMAXPS returns its
// second source when either is NaN, so NaNs are found by an unordered
// compare of each vector with itself, OR-ed into Y1.
TEXT ·maxNaNAVX2(SB), NOSPLIT, $0-21
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS rowsc<>+0(SB), Y0
	VXORPS       Y1, Y1, Y1
	SHRQ         $3, CX
	JZ           reduce

loop:
	VMOVUPS (SI), Y2
	VCMPPS  $3, Y2, Y2, Y3 // unordered: NaN lanes all ones
	VORPS   Y3, Y1, Y1
	VMAXPS  Y2, Y0, Y0
	ADDQ    $32, SI
	DECQ    CX
	JNZ     loop

reduce:
	VEXTRACTF128 $1, Y0, X2
	VMAXPS       X2, X0, X0
	VPERMILPS    $0x4e, X0, X2 // swap the 64-bit halves
	VMAXPS       X2, X0, X0
	VPERMILPS    $0xb1, X0, X2 // swap neighbours
	VMAXPS       X2, X0, X0
	VMOVSS       X0, mx+16(FP)
	VMOVMSKPS    Y1, AX
	TESTL        AX, AX
	SETNE        nan+20(FP)
	VZEROUPPER
	RET

// func scaleAVX2(y *float32, n int, s float32)
//
// y[i] *= s for i < n (a multiple of 8): VMULPS rounds each product as
// the scalar multiply does.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-20
	MOVQ         y+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Y1
	SHRQ         $3, CX
	JZ           done

loop:
	VMULPS  (DI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET

// func lnOutAVX2(y, x, gam, bet *float32, n int, mu, r float32)
//
// y[i] = ((x[i] − mu) r) g[i] + b[i] for i < n (a multiple of 8), each
// operation rounded on its own as Go's scalar float32 code rounds it (no
// fused multiply-add).
TEXT ·lnOutAVX2(SB), NOSPLIT, $0-48
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         gam+16(FP), DX
	MOVQ         bet+24(FP), BX
	MOVQ         n+32(FP), CX
	VBROADCASTSS mu+40(FP), Y14
	VBROADCASTSS r+44(FP), Y15
	SHRQ         $3, CX
	JZ           done

loop:
	VMOVUPS (SI), Y0
	VSUBPS  Y14, Y0, Y0 // x − mu
	VMULPS  Y15, Y0, Y0 // times r
	VMULPS  (DX), Y0, Y0 // times g
	VADDPS  (BX), Y0, Y0 // + b
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET

// func addAVX2(y, a, b *float32, n int)
//
// y[i] = a[i] + b[i] for i < n (a multiple of 8).
TEXT ·addAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JZ   done

loop:
	VMOVUPS (SI), Y0
	VADDPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET

// LOAD8 loads eight rows' next eight columns: row k at SI + k·DX bytes
// (BX = 3·DX, R8 = SI + 4·DX).
#define LOAD8 \
	VMOVUPS (SI), Y0; \
	VMOVUPS (SI)(DX*1), Y1; \
	VMOVUPS (SI)(DX*2), Y2; \
	VMOVUPS (SI)(BX*1), Y3; \
	VMOVUPS (R8), Y4; \
	VMOVUPS (R8)(DX*1), Y5; \
	VMOVUPS (R8)(DX*2), Y6; \
	VMOVUPS (R8)(BX*1), Y7

// TRANSPOSE8 turns rows Y0..Y7 (row k in Yk) into columns: afterwards
// columns 0, 1, …, 7 (lane k = row k) are in Y0, Y2, Y1, Y3, Y4, Y6, Y5,
// Y7, in that order. Y8 is scratch.
#define TRANSPOSE8 \
	VUNPCKLPS  Y1, Y0, Y8; \
	VUNPCKHPS  Y1, Y0, Y1; \
	VMOVAPS    Y8, Y0; \
	VUNPCKLPS  Y3, Y2, Y8; \
	VUNPCKHPS  Y3, Y2, Y3; \
	VMOVAPS    Y8, Y2; \
	VUNPCKLPS  Y5, Y4, Y8; \
	VUNPCKHPS  Y5, Y4, Y5; \
	VMOVAPS    Y8, Y4; \
	VUNPCKLPS  Y7, Y6, Y8; \
	VUNPCKHPS  Y7, Y6, Y7; \
	VMOVAPS    Y8, Y6; \
	VSHUFPS    $0x44, Y2, Y0, Y8; \
	VSHUFPS    $0xee, Y2, Y0, Y2; \
	VMOVAPS    Y8, Y0; \
	VSHUFPS    $0x44, Y3, Y1, Y8; \
	VSHUFPS    $0xee, Y3, Y1, Y3; \
	VMOVAPS    Y8, Y1; \
	VSHUFPS    $0x44, Y6, Y4, Y8; \
	VSHUFPS    $0xee, Y6, Y4, Y6; \
	VMOVAPS    Y8, Y4; \
	VSHUFPS    $0x44, Y7, Y5, Y8; \
	VSHUFPS    $0xee, Y7, Y5, Y7; \
	VMOVAPS    Y8, Y5; \
	VPERM2F128 $0x20, Y4, Y0, Y8; \
	VPERM2F128 $0x31, Y4, Y0, Y4; \
	VMOVAPS    Y8, Y0; \
	VPERM2F128 $0x20, Y6, Y2, Y8; \
	VPERM2F128 $0x31, Y6, Y2, Y6; \
	VMOVAPS    Y8, Y2; \
	VPERM2F128 $0x20, Y5, Y1, Y8; \
	VPERM2F128 $0x31, Y5, Y1, Y5; \
	VMOVAPS    Y8, Y1; \
	VPERM2F128 $0x20, Y7, Y3, Y8; \
	VPERM2F128 $0x31, Y7, Y3, Y7; \
	VMOVAPS    Y8, Y3

// SQDEV adds (col − mu)² to Y9, the square rounded before the sum.
#define SQDEV(col) \
	VSUBPS Y10, col, Y11; \
	VMULPS Y11, Y11, Y11; \
	VADDPS Y11, Y9, Y9

// func rowStats8AVX2(x *float32, stride, c int, cf float32, mu, q *[8]float32)
//
// For the eight rows at x, x + stride, … (stride in floats) of c columns
// (a multiple of 8): mu[k] = (Σ_j row_k[j]) / cf and q[k] = Σ_j (row_k[j]
// − mu[k])², every sum in column order, one add after another, each
// product rounded before its add: the scalar loop's numbers, with lane k
// carrying row k. Blocks of 8×8 are transposed in registers.
TEXT ·rowStats8AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), DI
	MOVQ stride+8(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ c+16(FP), R9
	SHRQ $3, R9

	// Sums.
	MOVQ   DI, SI
	LEAQ   (SI)(DX*4), R8
	MOVQ   R9, CX
	VXORPS Y9, Y9, Y9

sumloop:
	LOAD8
	TRANSPOSE8
	VADDPS Y0, Y9, Y9
	VADDPS Y2, Y9, Y9
	VADDPS Y1, Y9, Y9
	VADDPS Y3, Y9, Y9
	VADDPS Y4, Y9, Y9
	VADDPS Y6, Y9, Y9
	VADDPS Y5, Y9, Y9
	VADDPS Y7, Y9, Y9
	ADDQ   $32, SI
	ADDQ   $32, R8
	DECQ   CX
	JNZ    sumloop

	VBROADCASTSS cf+24(FP), Y10
	VDIVPS       Y10, Y9, Y10 // mu = sum / c
	MOVQ         mu+32(FP), AX
	VMOVUPS      Y10, (AX)

	// Squared deviations.
	MOVQ   DI, SI
	LEAQ   (SI)(DX*4), R8
	MOVQ   R9, CX
	VXORPS Y9, Y9, Y9

sqloop:
	LOAD8
	TRANSPOSE8
	SQDEV(Y0)
	SQDEV(Y2)
	SQDEV(Y1)
	SQDEV(Y3)
	SQDEV(Y4)
	SQDEV(Y6)
	SQDEV(Y5)
	SQDEV(Y7)
	ADDQ   $32, SI
	ADDQ   $32, R8
	DECQ   CX
	JNZ    sqloop

	MOVQ    q+40(FP), AX
	VMOVUPS Y9, (AX)
	VZEROUPPER
	RET

// func lnGradAVX2(dx, dr, dy, gam, xh, mask *float32, n int, r, sg, sgx float32)
//
// For i < n (a multiple of 8): d = r·((dy·gam − sg) − xh·sgx), each
// operation rounded on its own (no fused multiply-add); dx += d; with dr,
// dr += d (mask nil) or d·mask.
TEXT ·lnGradAVX2(SB), NOSPLIT, $0-68
	MOVQ         dx+0(FP), DI
	MOVQ         dr+8(FP), R8
	MOVQ         dy+16(FP), SI
	MOVQ         gam+24(FP), DX
	MOVQ         xh+32(FP), BX
	MOVQ         mask+40(FP), R9
	MOVQ         n+48(FP), CX
	VBROADCASTSS r+56(FP), Y13
	VBROADCASTSS sg+60(FP), Y14
	VBROADCASTSS sgx+64(FP), Y15
	SHRQ         $3, CX
	JZ           lgdone
	XORQ         AX, AX
	TESTQ        R8, R8
	JZ           lgdx
	TESTQ        R9, R9
	JZ           lgdr

lgmask:
	VMOVUPS (SI)(AX*1), Y0
	VMULPS  (DX)(AX*1), Y0, Y0 // g = dy·gam
	VSUBPS  Y14, Y0, Y0        // g − sg
	VMOVUPS (BX)(AX*1), Y1
	VMULPS  Y15, Y1, Y1        // xh·sgx
	VSUBPS  Y1, Y0, Y0
	VMULPS  Y0, Y13, Y0        // d = r·(…)
	VADDPS  (DI)(AX*1), Y0, Y2
	VMOVUPS Y2, (DI)(AX*1)
	VMULPS  (R9)(AX*1), Y0, Y3 // d·mask
	VADDPS  (R8)(AX*1), Y3, Y3
	VMOVUPS Y3, (R8)(AX*1)
	ADDQ    $32, AX
	DECQ    CX
	JNZ     lgmask
	JMP     lgdone

lgdr:
	VMOVUPS (SI)(AX*1), Y0
	VMULPS  (DX)(AX*1), Y0, Y0
	VSUBPS  Y14, Y0, Y0
	VMOVUPS (BX)(AX*1), Y1
	VMULPS  Y15, Y1, Y1
	VSUBPS  Y1, Y0, Y0
	VMULPS  Y0, Y13, Y0
	VADDPS  (DI)(AX*1), Y0, Y2
	VMOVUPS Y2, (DI)(AX*1)
	VADDPS  (R8)(AX*1), Y0, Y3
	VMOVUPS Y3, (R8)(AX*1)
	ADDQ    $32, AX
	DECQ    CX
	JNZ     lgdr
	JMP     lgdone

lgdx:
	VMOVUPS (SI)(AX*1), Y0
	VMULPS  (DX)(AX*1), Y0, Y0
	VSUBPS  Y14, Y0, Y0
	VMOVUPS (BX)(AX*1), Y1
	VMULPS  Y15, Y1, Y1
	VSUBPS  Y1, Y0, Y0
	VMULPS  Y0, Y13, Y0
	VADDPS  (DI)(AX*1), Y0, Y2
	VMOVUPS Y2, (DI)(AX*1)
	ADDQ    $32, AX
	DECQ    CX
	JNZ     lgdx

lgdone:
	VZEROUPPER
	RET

// func softmaxGradAVX2(p, d *float32, n int, a, s float32)
//
// p[i] = (a·p[i])·(d[i] − s) for i < n (a multiple of 8), each operation
// rounded on its own.
TEXT ·softmaxGradAVX2(SB), NOSPLIT, $0-32
	MOVQ         p+0(FP), DI
	MOVQ         d+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS a+24(FP), Y14
	VBROADCASTSS s+28(FP), Y15
	SHRQ         $3, CX
	JZ           sgdone

sgloop:
	VMULPS  (DI), Y14, Y0 // a·p
	VMOVUPS (SI), Y1
	VSUBPS  Y15, Y1, Y1   // d − s
	VMULPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	DECQ    CX
	JNZ     sgloop

sgdone:
	VZEROUPPER
	RET

// func addScaledAVX2(y, x *float32, n int, a float32)
//
// y[i] += a·x[i] for i < n (a multiple of 8), the product rounded before
// the add.
TEXT ·addScaledAVX2(SB), NOSPLIT, $0-28
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS a+24(FP), Y15
	SHRQ         $3, CX
	JZ           asdone

asloop:
	VMULPS  (SI), Y15, Y0
	VADDPS  (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     asloop

asdone:
	VZEROUPPER
	RET

// func mulAcc2AVX2(p, x, a, b *float32, n int)
//
// d = a[i]·b[i] (rounded), p[i] += d and x[i] += d for i < n (a multiple
// of 8).
TEXT ·mulAcc2AVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), DI
	MOVQ x+8(FP), R8
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	JZ   ma2done

ma2loop:
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VADDPS  (DI), Y0, Y1
	VMOVUPS Y1, (DI)
	VADDPS  (R8), Y0, Y2
	VMOVUPS Y2, (R8)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	ADDQ    $32, R8
	DECQ    CX
	JNZ     ma2loop

ma2done:
	VZEROUPPER
	RET
