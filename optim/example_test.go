package optim_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
)

// A training loop: AdamW with biases exempt from decay, clipping, a warm-up
// and cosine schedule, minimising ½‖w − 3‖² + ½‖b + 1‖².
func Example() {
	cfg := optim.DefaultConfig()
	cfg.WeightDecay = 0.01
	cfg.NoDecay = optim.MatchNames("*.bias")
	opt := optim.NewAdamW(cfg)
	w, b := tensor.Param("lin.weight", 2), tensor.Param("lin.bias", 1)
	for _, p := range []*tensor.Tensor{w, b} {
		if err := opt.Add(p); err != nil {
			log.Fatal(err)
		}
	}
	sched := optim.Schedule{Peak: 0.1, Floor: 1e-3, Warmup: 10, Total: 500, Decay: optim.Cosine}
	for range 500 {
		for i, x := range w.Data {
			w.Grad[i] = x - 3
		}
		b.Grad[0] = b.Data[0] + 1
		opt.ClipGradNorm(1)
		opt.Step(sched.At(opt.StepCount()))
	}
	fmt.Printf("w = %.2f, b = %.2f after %d steps\n", w.Data, b.Data, opt.StepCount())
	// Output: w = [2.99 2.99], b = [-1.00] after 500 steps
}

// The topic tree grows: topic 1 is pruned and a new topic is appended to a
// (T, n) matrix. Surviving rows keep their moments; the new one starts fresh.
func ExampleAdam_RemapRows() {
	opt := optim.NewAdam(optim.DefaultConfig())
	topics := tensor.Param("topic.emb", 3, 2)
	if err := opt.Add(topics); err != nil {
		log.Fatal(err)
	}
	for i := range topics.Grad {
		topics.Grad[i] = 1
	}
	opt.Step(0.01)

	oldRowForNewRow := []int{0, 2, -1} // keep topics 0 and 2, add one
	grown := tensor.Param("topic.emb", 3, 2)
	copy(grown.Data[0:2], topics.Data[0:2])
	copy(grown.Data[2:4], topics.Data[4:6])
	if err := opt.RemapRows("topic.emb", grown.Shape, oldRowForNewRow); err != nil {
		log.Fatal(err)
	}
	if err := opt.Rebind(grown); err != nil {
		log.Fatal(err)
	}
	fmt.Println("first moments:", opt.State()[optim.PrefixM+"topic.emb"].Data)
	fmt.Println("update counts:", opt.State()[optim.PrefixT+"topic.emb"].Data)
	// Output:
	// first moments: [0.1 0.1 0.1 0.1 0 0]
	// update counts: [1 1 0]
}

// Checkpoint and resume: the weights and the optimiser state go to two
// safetensors files; a fresh optimiser over the same parameter names
// continues bit for bit.
func ExampleAdam_SaveState() {
	dir, err := os.MkdirTemp("", "optim-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "optim.safetensors")

	opt := optim.NewAdamW(optim.DefaultConfig())
	p := tensor.Param("w", 4)
	opt.Add(p)
	p.Grad[0] = 1
	opt.Step(1e-3)
	if err := opt.SaveState(path, map[string]string{"epoch": "1"}); err != nil {
		log.Fatal(err)
	}

	fresh := optim.NewAdamW(optim.DefaultConfig())
	fresh.Add(tensor.Param("w", 4)) // weights restored separately
	meta, err := fresh.LoadStateFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("step", fresh.StepCount(), "epoch", meta["epoch"], "kind", meta[optim.MetaKind])
	// Output: step 1 epoch 1 kind adamw
}
