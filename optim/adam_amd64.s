//go:build amd64 && !purego

#include "textflag.h"

// func adamAVX(p, gr, m, v *float32, n int, k *[9]float64)
//
// For i < n (a multiple of 4), with k = {l2, b1, 1−b1, b2, 1−b2, shrink,
// stepSize, invSqrtBC2, eps}, exactly as adamRowGo:
//
//	pj = float64(p[i]); gj = float64(g[i]) + l2·pj
//	mj = b1·m[i] + (1−b1)·gj;  vj = b2·v[i] + ((1−b2)·gj)·gj
//	pj = pj·shrink − (stepSize·mj)/(√vj·invSqrtBC2 + eps)
//	m[i], v[i], p[i] = float32(mj), float32(vj), float32(pj)
TEXT ·adamAVX(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ gr+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), AX
	SHRQ $2, CX
	JZ   done
	VBROADCASTSD 0(AX), Y8   // l2
	VBROADCASTSD 8(AX), Y9   // b1
	VBROADCASTSD 16(AX), Y10 // 1−b1
	VBROADCASTSD 24(AX), Y11 // b2
	VBROADCASTSD 32(AX), Y12 // 1−b2
	VBROADCASTSD 40(AX), Y13 // shrink
	VBROADCASTSD 48(AX), Y14 // stepSize
	VBROADCASTSD 56(AX), Y15 // invSqrtBC2
	VBROADCASTSD 64(AX), Y7  // eps

loop:
	VCVTPS2PD (DI), Y0 // pj
	VCVTPS2PD (SI), Y1 // float64(g)
	VMULPD    Y0, Y8, Y2
	VADDPD    Y2, Y1, Y1 // gj = g + l2·pj
	VCVTPS2PD (R8), Y2
	VMULPD    Y2, Y9, Y2 // b1·m
	VMULPD    Y1, Y10, Y3
	VADDPD    Y3, Y2, Y2 // mj = b1·m + (1−b1)·gj
	VCVTPS2PD (R9), Y3
	VMULPD    Y3, Y11, Y3 // b2·v
	VMULPD    Y1, Y12, Y4
	VMULPD    Y1, Y4, Y4  // ((1−b2)·gj)·gj
	VADDPD    Y4, Y3, Y3  // vj
	VSQRTPD   Y3, Y4
	VMULPD    Y15, Y4, Y4 // √vj·invSqrtBC2
	VADDPD    Y7, Y4, Y4  // + eps
	VMULPD    Y2, Y14, Y5 // stepSize·mj
	VDIVPD    Y4, Y5, Y5
	VMULPD    Y13, Y0, Y0 // pj·shrink
	VSUBPD    Y5, Y0, Y0
	VCVTPD2PSY Y2, X2
	VCVTPD2PSY Y3, X3
	VCVTPD2PSY Y0, X0
	VMOVUPS   X2, (R8)
	VMOVUPS   X3, (R9)
	VMOVUPS   X0, (DI)
	ADDQ      $16, DI
	ADDQ      $16, SI
	ADDQ      $16, R8
	ADDQ      $16, R9
	DECQ      CX
	JNZ       loop
	VZEROUPPER

done:
	RET

// func scaleAVX(gr *float32, n int, s float64)
//
// g[i] = float32(float64(g[i])·s) for i < n (a multiple of 4).
TEXT ·scaleAVX(SB), NOSPLIT, $0-24
	MOVQ         gr+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSD s+16(FP), Y15
	SHRQ         $2, CX
	JZ           sdone

sloop:
	VCVTPS2PD  (DI), Y0
	VMULPD     Y15, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)
	ADDQ       $16, DI
	DECQ       CX
	JNZ        sloop
	VZEROUPPER

sdone:
	RET
