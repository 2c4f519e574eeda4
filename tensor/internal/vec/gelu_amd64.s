//go:build amd64 && !purego

#include "textflag.h"

// Constants of gelu32/tanhRational in fastmath.go, as float32.
DATA geluc<>+0(SB)/4, $0x3f4c422a // c1 = 0.7978845608028654
DATA geluc<>+4(SB)/4, $0x3d122279 // c2 = 0.035677408136300125
DATA geluc<>+8(SB)/4, $0x40fcf84f // hi = 7.905311107635498
DATA geluc<>+12(SB)/4, $0xc0fcf84f // lo = -7.905311107635498
DATA geluc<>+16(SB)/4, $0x3f000000 // half = 0.5
DATA geluc<>+20(SB)/4, $0x3ddb33b6 // c3 = 0.10703222440890038
DATA geluc<>+24(SB)/4, $0xa59f25c0 // a13 = -2.76076847742355e-16
DATA geluc<>+28(SB)/4, $0x2a61337e // a11 = 2.00018790482477e-13
DATA geluc<>+32(SB)/4, $0xaebd37ff // a9 = -8.60467152213735e-11
DATA geluc<>+36(SB)/4, $0x335c0041 // a7 = 5.12229709037114e-08
DATA geluc<>+40(SB)/4, $0x3779434a // a5 = 1.48572235717979e-05
DATA geluc<>+44(SB)/4, $0x3a270ded // a3 = 0.000637261928875436
DATA geluc<>+48(SB)/4, $0x3ba059dc // a1 = 0.00489352455891786
DATA geluc<>+52(SB)/4, $0x35a0d3d8 // b6 = 1.19825839466702e-06
DATA geluc<>+56(SB)/4, $0x38f895d6 // b4 = 0.000118534705686654
DATA geluc<>+60(SB)/4, $0x3b14aa05 // b2 = 0.002268434632439
DATA geluc<>+64(SB)/4, $0x3ba059dd // b0 = 0.00489352518554385
DATA geluc<>+68(SB)/4, $0x80000000 // sign bit
DATA geluc<>+72(SB)/4, $0x3f800000 // 1.0
GLOBL geluc<>(SB), RODATA|NOPTR, $76

// GELUY computes, for the eight values at (AX) plus those at (BX): v in
// Y0, v² in Y1, t = tanh(u) in Y4, h = 0.5 + 0.5·t in Y7 and y = v·h in
// Y8 (Y15..Y11 hold c1, c2, hi, lo, half; Y2, Y3, Y5, Y6 and Y10 are
// clobbered). In order: v = x + b; u = v·(c1 + c2·v²); u clamped to
// ±7.905, the in-range lanes marked; t = u·p(u²)/q(u²) with p's
// coefficients a13..a1 and q's b6..b0 by Horner steps; t = ±1 (u's sign)
// exactly where u was clamped; h and y.
#define GELUY \
	VMOVUPS     (AX), Y0; \
	VADDPS      (BX), Y0, Y0; \
	VMULPS      Y0, Y0, Y1; \
	VMOVAPS     Y14, Y2; \
	VFMADD213PS Y15, Y1, Y2; \
	VMULPS      Y2, Y0, Y2; \
	VMOVAPS     Y2, Y10; \
	VMINPS      Y13, Y2, Y2; \
	VMAXPS      Y12, Y2, Y2; \
	VCMPPS      $0, Y2, Y10, Y10; \
	VMULPS      Y2, Y2, Y3; \
	VBROADCASTSS geluc<>+24(SB), Y4; \
	VBROADCASTSS geluc<>+28(SB), Y5; \
	VFMADD213PS Y5, Y3, Y4; \
	VBROADCASTSS geluc<>+32(SB), Y5; \
	VFMADD213PS Y5, Y3, Y4; \
	VBROADCASTSS geluc<>+36(SB), Y5; \
	VFMADD213PS Y5, Y3, Y4; \
	VBROADCASTSS geluc<>+40(SB), Y5; \
	VFMADD213PS Y5, Y3, Y4; \
	VBROADCASTSS geluc<>+44(SB), Y5; \
	VFMADD213PS Y5, Y3, Y4; \
	VBROADCASTSS geluc<>+48(SB), Y5; \
	VFMADD213PS Y5, Y3, Y4; \
	VMULPS      Y4, Y2, Y4; \
	VBROADCASTSS geluc<>+52(SB), Y6; \
	VBROADCASTSS geluc<>+56(SB), Y5; \
	VFMADD213PS Y5, Y3, Y6; \
	VBROADCASTSS geluc<>+60(SB), Y5; \
	VFMADD213PS Y5, Y3, Y6; \
	VBROADCASTSS geluc<>+64(SB), Y5; \
	VFMADD213PS Y5, Y3, Y6; \
	VDIVPS      Y6, Y4, Y4; \
	VBROADCASTSS geluc<>+68(SB), Y5; \
	VANDPS      Y2, Y5, Y5; \
	VBROADCASTSS geluc<>+72(SB), Y6; \
	VORPS       Y6, Y5, Y5; \
	VANDPS      Y10, Y4, Y4; \
	VANDNPS     Y5, Y10, Y5; \
	VORPS       Y5, Y4, Y4; \
	VMOVAPS     Y11, Y7; \
	VFMADD231PS Y4, Y11, Y7; \
	VMULPS      Y7, Y0, Y8

// func geluGradAVX2(y, d, x, b *float32, n int)
//
// For i < n (n a multiple of 8): v = x[i]+b[i], y[i] = gelu(v), d[i] = gelu'(v),
// eight lanes at a time with the same rational tanh as tanhRational.
TEXT ·geluGradAVX2(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ x+16(FP), AX
	MOVQ b+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	JZ   done
	VBROADCASTSS geluc<>+0(SB), Y15
	VBROADCASTSS geluc<>+4(SB), Y14
	VBROADCASTSS geluc<>+8(SB), Y13
	VBROADCASTSS geluc<>+12(SB), Y12
	VBROADCASTSS geluc<>+16(SB), Y11

loop:
	GELUY
	VMOVUPS     Y8, (DI)
	VMULPS      Y4, Y4, Y8       // t²
	VMOVAPS     Y11, Y9
	VFNMADD231PS Y8, Y11, Y9     // 0.5 − 0.5·t²

	VBROADCASTSS geluc<>+20(SB), Y10
	VFMADD213PS Y15, Y1, Y10     // c1 + 3·c2·x2
	VMULPS      Y10, Y9, Y9
	VFMADD213PS Y7, Y0, Y9       // d = h + v·(0.5 − 0.5t²)(c1 + 3c2·x2)
	VMOVUPS     Y9, (SI)
	ADDQ        $32, AX
	ADDQ        $32, BX
	ADDQ        $32, DI
	ADDQ        $32, SI
	DECQ        CX
	JNZ         loop

done:
	VZEROUPPER
	RET

// func geluAVX2(y, x, b *float32, n int)
//
// y[i] = gelu(x[i]+b[i]) for i < n (n a multiple of 8): geluGradAVX2's y,
// bit for bit, without the derivative (inference).
TEXT ·geluAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JZ   gdone
	VBROADCASTSS geluc<>+0(SB), Y15
	VBROADCASTSS geluc<>+4(SB), Y14
	VBROADCASTSS geluc<>+8(SB), Y13
	VBROADCASTSS geluc<>+12(SB), Y12
	VBROADCASTSS geluc<>+16(SB), Y11

gloop:
	GELUY
	VMOVUPS Y8, (DI)
	ADDQ    $32, AX
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     gloop

gdone:
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
