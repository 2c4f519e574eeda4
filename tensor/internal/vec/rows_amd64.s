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
