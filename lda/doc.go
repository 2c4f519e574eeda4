// Package lda fits latent Dirichlet allocation (Blei, Ng & Jordan, JMLR
// 2003) by batch variational Bayes, the algorithm of Hoffman, Blei & Bach,
// "Online learning for latent Dirichlet allocation" (NIPS 2010), Algorithm 1,
// as scikit-learn's LatentDirichletAllocation(learning_method='batch')
// implements it, with its defaults. It is the flat topic model that package
// baseline sets beside gtformer's tree.
//
// # Model
//
// T topics over V words. Topic t's word distribution β_t ~ Dirichlet(η),
// document d's topic mixture θ_d ~ Dirichlet(α), and each token picks a
// topic z ~ θ_d and a word w ~ β_z. The variational posterior is
// q(β_t) = Dirichlet(λ_t) (λ: T×V), q(θ_d) = Dirichlet(γ_d) (γ: N×T) and
// q(z_dw = t) = φ_dwt. With Ψ the digamma function,
//
//	E[log θ_dt] = Ψ(γ_dt) − Ψ(Σ_s γ_ds),   E[log β_tw] = Ψ(λ_tw) − Ψ(Σ_v λ_tv).
//
// # Algorithm
//
// Start: λ_tw ~ Gamma(shape 100, scale 1/100) (seeded).
//
// One iteration (an EM step over all documents):
//
// E-step, per document d with distinct words w and counts n_dw (the
// documents are independent given λ, so they run in parallel): start
// γ_dt ~ Gamma(100, 1/100) (fresh draws every iteration), then repeat
//
//	φ_dwt ∝ exp(E[log θ_dt]) exp(E[log β_tw]),
//	γ_dt  = α + Σ_w n_dw φ_dwt,
//
// until the mean absolute change of γ_d is below MeanChangeTol or
// MaxDocUpdateIter updates have run. φ is never stored: its normaliser
// Σ_t exp(E[log θ_dt]) exp(E[log β_tw]) (plus float64's epsilon, as
// scikit-learn) is recomputed per word.
//
// M-step: λ_tw = η + Σ_d n_dw φ_dwt, the sufficient statistics summed over
// the documents in document order whatever the number of workers, so the
// same seed gives the same numbers on any machine.
//
// Fit runs MaxIter iterations (scikit-learn's evaluate_every is off: no
// early stop). Transform infers a new document's mixture by the same E-step
// from γ = 1 with λ fixed and returns θ_d = γ_d / Σ_t γ_dt; Beta returns
// λ_t / Σ_v λ_tv. Bound is the evidence lower bound (scikit-learn's score):
//
//	Σ_d Σ_w n_dw log Σ_t exp(E[log θ_dt] + E[log β_tw])
//	+ Σ_d [ Σ_t ((α − γ_dt) E[log θ_dt] + ln Γ(γ_dt) − ln Γ(α)) + ln Γ(Tα) − ln Γ(Σ_t γ_dt) ]
//	+ Σ_t [ Σ_w ((η − λ_tw) E[log β_tw] + ln Γ(λ_tw) − ln Γ(η)) + ln Γ(Vη) − ln Γ(Σ_w λ_tw) ].
//
// # Defaults (scikit-learn's)
//
// α = η = 1/T, MaxIter 100, MaxDocUpdateIter 100, MeanChangeTol 1e-3.
//
// # Agreement with scikit-learn
//
// Started from the same λ and with γ started at 1, an iteration here and
// one of scikit-learn's agree to rounding (TestAgainstScikitLearn, with the
// reference computed by scripts/lda_sklearn.py). The random draws differ
// (Go's PCG, not NumPy's Mersenne twister), so fits from random starts agree
// in distribution, not number by number: docs/design.md, "Baselines", compares five seeds of each on the paper's corpora.
package lda
