// AVX-512 macros shared by the kernels of kernel_amd64.s and
// kernel512_amd64.s: MR = 12, NR = 32. Z0..Z23 hold the tile (row r in
// Z(2r), Z(2r+1)), Z24/Z25 the step's B row, Z26..Z31 the broadcasts.

#define ROW512(aoff, tmp, acc0, acc1) \
	VBROADCASTSS aoff(AX), tmp; \
	VFMADD231PS  Z24, tmp, acc0; \
	VFMADD231PS  Z25, tmp, acc1

// STEP512 is one k step; ao and bo are the byte offsets of its A and B values.
#define STEP512(ao, bo) \
	VMOVUPS (bo)(BX), Z24; \
	VMOVUPS (bo+64)(BX), Z25; \
	ROW512(ao+0, Z26, Z0, Z1); \
	ROW512(ao+4, Z27, Z2, Z3); \
	ROW512(ao+8, Z28, Z4, Z5); \
	ROW512(ao+12, Z29, Z6, Z7); \
	ROW512(ao+16, Z30, Z8, Z9); \
	ROW512(ao+20, Z31, Z10, Z11); \
	ROW512(ao+24, Z26, Z12, Z13); \
	ROW512(ao+28, Z27, Z14, Z15); \
	ROW512(ao+32, Z28, Z16, Z17); \
	ROW512(ao+36, Z29, Z18, Z19); \
	ROW512(ao+40, Z30, Z20, Z21); \
	ROW512(ao+44, Z31, Z22, Z23)

// Z30 holds alpha, Z31 beta; DI walks the rows of C, SI is ldc in bytes.
#define STORE512(acc0, acc1) \
	VMULPS  Z30, acc0, acc0; \
	VMULPS  Z30, acc1, acc1; \
	VMOVUPS acc0, (DI); \
	VMOVUPS acc1, 64(DI); \
	ADDQ    SI, DI

#define STOREBETA512(acc0, acc1) \
	VMULPS      Z30, acc0, acc0; \
	VMULPS      Z30, acc1, acc1; \
	VFMADD231PS (DI), Z31, acc0; \
	VFMADD231PS 64(DI), Z31, acc1; \
	VMOVUPS     acc0, (DI); \
	VMOVUPS     acc1, 64(DI); \
	ADDQ        SI, DI

// ZERO512 clears the tile's accumulators.
#define ZERO512 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23

// STOREALL512 and STOREBETAALL512 write the whole tile, rows ldc apart.
#define STOREALL512 \
	STORE512(Z0, Z1); \
	STORE512(Z2, Z3); \
	STORE512(Z4, Z5); \
	STORE512(Z6, Z7); \
	STORE512(Z8, Z9); \
	STORE512(Z10, Z11); \
	STORE512(Z12, Z13); \
	STORE512(Z14, Z15); \
	STORE512(Z16, Z17); \
	STORE512(Z18, Z19); \
	STORE512(Z20, Z21); \
	STORE512(Z22, Z23)

#define STOREBETAALL512 \
	STOREBETA512(Z0, Z1); \
	STOREBETA512(Z2, Z3); \
	STOREBETA512(Z4, Z5); \
	STOREBETA512(Z6, Z7); \
	STOREBETA512(Z8, Z9); \
	STOREBETA512(Z10, Z11); \
	STOREBETA512(Z12, Z13); \
	STOREBETA512(Z14, Z15); \
	STOREBETA512(Z16, Z17); \
	STOREBETA512(Z18, Z19); \
	STOREBETA512(Z20, Z21); \
	STOREBETA512(Z22, Z23)

// FMA512 multiply-adds the broadcast tmp into a row's two accumulators.
#define FMA512(tmp, acc0, acc1) \
	VFMADD231PS Z24, tmp, acc0; \
	VFMADD231PS Z25, tmp, acc1

// STEPD512 is one k step; ao is its byte offset along the rows of A, bo
// that of its B values.
#define STEPD512(ao, bo) \
	VMOVUPS      (bo)(BX), Z24; \
	VMOVUPS      (bo+64)(BX), Z25; \
	VBROADCASTSS ao(AX), Z26; \
	FMA512(Z26, Z0, Z1); \
	VBROADCASTSS ao(AX)(R9*1), Z27; \
	FMA512(Z27, Z2, Z3); \
	VBROADCASTSS ao(AX)(R9*2), Z28; \
	FMA512(Z28, Z4, Z5); \
	VBROADCASTSS ao(AX)(R10*1), Z29; \
	FMA512(Z29, Z6, Z7); \
	VBROADCASTSS ao(R11), Z30; \
	FMA512(Z30, Z8, Z9); \
	VBROADCASTSS ao(R11)(R9*1), Z31; \
	FMA512(Z31, Z10, Z11); \
	VBROADCASTSS ao(R11)(R9*2), Z26; \
	FMA512(Z26, Z12, Z13); \
	VBROADCASTSS ao(R11)(R10*1), Z27; \
	FMA512(Z27, Z14, Z15); \
	VBROADCASTSS ao(R12), Z28; \
	FMA512(Z28, Z16, Z17); \
	VBROADCASTSS ao(R12)(R9*1), Z29; \
	FMA512(Z29, Z18, Z19); \
	VBROADCASTSS ao(R12)(R9*2), Z30; \
	FMA512(Z30, Z20, Z21); \
	VBROADCASTSS ao(R12)(R10*1), Z31; \
	FMA512(Z31, Z22, Z23)

// EPILOGUE512 scales the tile by alpha (at FP offset aoff), adds beta·C
// (beta at boff) unless beta = ±0, whose C is not read, writes it and
// returns; nobeta names the label it needs, unique per kernel.
#define EPILOGUE512(aoff, boff, nobeta) \
	VBROADCASTSS alpha+aoff(FP), Z30; \
	MOVL         beta+boff(FP), DX; \
	ANDL         $0x7fffffff, DX; \
	JZ           nobeta; \
	VBROADCASTSS beta+boff(FP), Z31; \
	STOREBETAALL512; \
	VZEROUPPER; \
	RET; \
nobeta: \
	STOREALL512; \
	VZEROUPPER; \
	RET
