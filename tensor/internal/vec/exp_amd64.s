//go:build amd64 && !purego

#include "textflag.h"

// Constants of Exp (exp.go). hi is lowered from 88.72 so that 2ⁿ stays finite.
DATA expc<>+0(SB)/4, $0x42b0bd71 // hi = 88.37
DATA expc<>+4(SB)/4, $0xc2aeac4f // lo = -87.33654
DATA expc<>+8(SB)/4, $0x3fb8aa3b // log2e = 1.4426950408889634
DATA expc<>+12(SB)/4, $0x3f000000 // half = 0.5
DATA expc<>+16(SB)/4, $0x3f318000 // c1 = 0.693359375
DATA expc<>+20(SB)/4, $0xb95e8083 // c2 = -0.00021219444
DATA expc<>+24(SB)/4, $0x3f800000 // one = 1.0
DATA expc<>+28(SB)/4, $127 // exponent bias
DATA expc<>+32(SB)/4, $0x39506967 // p0 = 0.000198756915
DATA expc<>+36(SB)/4, $0x3ab743ce // p1 = 0.0013981999507
DATA expc<>+40(SB)/4, $0x3c088908 // p2 = 0.0083334519073
DATA expc<>+44(SB)/4, $0x3d2aa9c1 // p3 = 0.041665795894
DATA expc<>+48(SB)/4, $0x3e2aaaaa // p4 = 0.16666665459
DATA expc<>+52(SB)/4, $0x3f000000 // p5 = 0.50000001201
GLOBL expc<>(SB), RODATA|NOPTR, $56

// func expShiftAVX2(dst, src *float32, n int, shift float32, sums *[8]float32)
//
// dst[i] = exp(src[i] − shift) for i < n (a multiple of 8); the eight lane
// sums of dst are stored to sums.
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS shift+24(FP), Y15
	MOVQ         sums+32(FP), DX
	VXORPS       Y14, Y14, Y14
	VBROADCASTSS expc<>+0(SB), Y13
	VBROADCASTSS expc<>+4(SB), Y12
	VBROADCASTSS expc<>+8(SB), Y11
	VBROADCASTSS expc<>+12(SB), Y10
	VBROADCASTSS expc<>+16(SB), Y9
	VBROADCASTSS expc<>+20(SB), Y8
	VBROADCASTSS expc<>+24(SB), Y7
	VPBROADCASTD expc<>+28(SB), Y6
	SHRQ         $3, CX
	JZ           done

loop:
	VMOVUPS      (SI), Y0
	VSUBPS       Y15, Y0, Y0      // x = src − shift
	VMINPS       Y13, Y0, Y0
	VMAXPS       Y12, Y0, Y0      // clamp
	VMOVAPS      Y10, Y1
	VFMADD231PS  Y11, Y0, Y1      // x·log2e + 0.5
	VROUNDPS     $1, Y1, Y1       // n = floor(…)
	VFNMADD231PS Y9, Y1, Y0       // r = x − n·C1
	VFNMADD231PS Y8, Y1, Y0       // r −= n·C2
	VMULPS       Y0, Y0, Y2       // z = r²
	VBROADCASTSS expc<>+32(SB), Y3
	VBROADCASTSS expc<>+36(SB), Y4
	VFMADD213PS  Y4, Y0, Y3       // y = y·r + p1
	VBROADCASTSS expc<>+40(SB), Y4
	VFMADD213PS  Y4, Y0, Y3       // y = y·r + p2
	VBROADCASTSS expc<>+44(SB), Y4
	VFMADD213PS  Y4, Y0, Y3       // y = y·r + p3
	VBROADCASTSS expc<>+48(SB), Y4
	VFMADD213PS  Y4, Y0, Y3       // y = y·r + p4
	VBROADCASTSS expc<>+52(SB), Y4
	VFMADD213PS  Y4, Y0, Y3       // y = y·r + p5
	VFMADD213PS  Y0, Y2, Y3       // y = y·z + r
	VADDPS       Y7, Y3, Y3       // y += 1
	VCVTPS2DQ    Y1, Y4
	VPADDD       Y6, Y4, Y4
	VPSLLD       $23, Y4, Y4      // 2ⁿ as float bits
	VMULPS       Y4, Y3, Y3
	VMOVUPS      Y3, (DI)
	VADDPS       Y3, Y14, Y14
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          loop

done:
	VMOVUPS      Y14, (DX)
	VZEROUPPER
	RET
