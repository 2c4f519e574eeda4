//go:build amd64 && !purego

#include "textflag.h"

// func dropPairsAVX512(m *float32, n int, lanes *[8]uint64, step uint64, thr, keep uint32)
//
// For n elements (a multiple of 16), eight counters z at a time: h =
// splitMix64(z), whose low and high 32 bits, in that order (the lane's
// two little-endian halves), give two elements: keep's bits when the half
// is ≥ thr (unsigned), else 0. Then z += step.
TEXT ·dropPairsAVX512(SB), NOSPLIT, $0-40
	MOVQ         m+0(FP), DI
	MOVQ         n+8(FP), CX
	MOVQ         lanes+16(FP), SI
	VMOVDQU64    (SI), Z0
	VPBROADCASTQ step+24(FP), Z14
	MOVL         thr+32(FP), R9
	VPBROADCASTD R9, Z10
	MOVL         keep+36(FP), R9
	VPBROADCASTD R9, Z11
	MOVQ         $0xbf58476d1ce4e5b9, R8
	VPBROADCASTQ R8, Z12
	MOVQ         $0x94d049bb133111eb, R8
	VPBROADCASTQ R8, Z13
	SHRQ         $4, CX
	JZ           dpdone

dploop:
	VPSRLQ    $30, Z0, Z1
	VPXORQ    Z0, Z1, Z1
	VPMULLQ   Z12, Z1, Z1
	VPSRLQ    $27, Z1, Z2
	VPXORQ    Z1, Z2, Z1
	VPMULLQ   Z13, Z1, Z1
	VPSRLQ    $31, Z1, Z2
	VPXORQ    Z1, Z2, Z1    // h: sixteen 32-bit halves, low before high
	VPCMPUD   $5, Z10, Z1, K1 // half ≥ thr
	VMOVDQU32.Z Z11, K1, Z3
	VMOVDQU32 Z3, (DI)
	VPADDQ    Z14, Z0, Z0
	ADDQ      $64, DI
	DECQ      CX
	JNZ       dploop

dpdone:
	VZEROUPPER
	RET
