package embedpipe

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/typex"
)

// Waves. Prism runs every stage as one bundle over its whole input, and
// holds that input several times while it runs: its pending elements, the
// bundle's input block, a joined copy of it, the gRPC message it becomes
// and its copies on the SDK's side (Prism and its workers share the
// process), then the stage's outputs, gathered whole before they are
// handed on. The joins over per-link messages (the hop stages, the state
// stages) are the largest, so the pipeline splits each of them by
// document key into waves that run one after another: wave w's inputs pass
// a gate (gateFn) that waits, through a side input, for wave w−1's output
// to be complete. A wave's bundle then holds a fraction of the stage, and
// the peak follows it. The per-link messages themselves are made only
// when their wave runs: a stage sends each document's states once, keyed
// by the document (an outbox, with the centres that read them), and each
// wave of the next join, once its gate opens, fans the outboxes out to its
// own centres (fanOutFn); so only one wave's messages wait at a time, and
// what waits for the later waves is one outbox per document. On a runner
// that spills to disk (Flink, Dataflow) waves only serialize what could
// overlap: --waves 1 there.

// maxWaves bounds Options.Waves: splitFn has this many outputs.
const maxWaves = 16

// waveOf spreads document keys over waves by a multiplicative hash (keys
// of new documents share their high bits).
func waveOf(key int64, waves int) int {
	return int((uint64(key) * 0x9E3779B97F4A7C15 >> 32) % uint64(waves))
}

// waved is a collection in parts keyed by document key: the whole
// collection as one part, or one part per wave. byKey says that part w
// holds only keys of wave w (waveOf), as a wave's outputs keyed by the
// keys of its joins do; other parts (messages keyed by the centre they go
// to) are split again for the next join. fan says that the parts hold
// outboxes, keyed by their senders: each wave of the next join fans them
// out to its own centres (fanOutFn) when it runs.
type waved struct {
	parts []beam.PCollection
	byKey bool
	fan   bool
}

// outboxes are the parts of outs, a wave's outbox collections (more than
// one when a stage sends from two outputs), to be fanned out.
func outboxes(outs ...waved) waved {
	var w waved
	for _, o := range outs {
		w.parts = append(w.parts, o.parts...)
	}
	w.fan = true
	return w
}

// whole is a collection not split into waves.
func whole(c beam.PCollection) waved { return waved{parts: []beam.PCollection{c}} }

// flat is the whole collection of w.
func (w waved) flat(s beam.Scope) beam.PCollection {
	if len(w.parts) == 1 {
		return w.parts[0]
	}
	return beam.Flatten(s, w.parts...)
}

// inWaves builds body over ins, collections keyed by document key (the key
// of body's joins), in waves (one wave: body over the whole inputs): each
// input is split by key where it is not already, wave w's parts pass a
// gate on wave w−1's first output, and body's outputs are returned in
// their waves' parts (byKey false: the caller knows which are). A part is
// split where it is made, so that no stage reads a whole per-link
// collection: Prism would run it as one bundle.
//
// An input of outboxes (fan) is not split: each wave reads all of it,
// after its gate, and fans out only the messages to its own centres
// (fanOutFn), so that a wave's per-link messages are made when it runs
// and no other wave's wait meanwhile. What waits is the outboxes, one per
// sending document, held once (Prism shares an element's bytes among the
// stages that read it).
func inWaves(s beam.Scope, waves int, ins []waved, body func(parts []beam.PCollection) []beam.PCollection) []waved {
	if waves <= 1 {
		flat := make([]beam.PCollection, len(ins))
		for i, in := range ins {
			flat[i] = in.flat(s)
			if in.fan {
				flat[i] = beam.ParDo(s, &fanOutFn{Waves: 1}, flat[i])
			}
		}
		return wavesOf(body(flat))
	}
	s = s.Scope("waves")
	// byWave[i][w]: input i's part of wave w (of a fan input: all of it,
	// the same collection for every wave).
	byWave := make([][]beam.PCollection, len(ins))
	for i, in := range ins {
		if in.fan {
			flat := in.flat(s)
			byWave[i] = make([]beam.PCollection, waves)
			for w := range waves {
				byWave[i][w] = flat
			}
			continue
		}
		if in.byKey && len(in.parts) == waves {
			byWave[i] = in.parts
			continue
		}
		split := make([][]beam.PCollection, len(in.parts))
		for j, part := range in.parts {
			split[j] = beam.ParDoN(s, &splitFn{Waves: waves}, part)
		}
		byWave[i] = make([]beam.PCollection, waves)
		for w := range waves {
			cols := make([]beam.PCollection, len(split))
			for j := range split {
				cols[j] = split[j][w]
			}
			if len(cols) == 1 {
				byWave[i][w] = cols[0]
			} else {
				byWave[i][w] = beam.Flatten(s, cols...)
			}
		}
	}
	var outs []waved
	var done beam.PCollection
	for w := range waves {
		parts := make([]beam.PCollection, len(ins))
		for i, in := range ins {
			parts[i] = byWave[i][w]
			if w > 0 {
				parts[i] = beam.ParDo(s, gateFn{}, parts[i], beam.SideInput{Input: done})
			}
			if in.fan {
				// Fused with the gate: nothing of wave w is made before
				// wave w−1 is complete.
				parts[i] = beam.ParDo(s, &fanOutFn{Waves: waves, Wave: w}, parts[i])
			}
		}
		o := body(parts)
		if outs == nil {
			outs = make([]waved, len(o))
		}
		for j, c := range o {
			outs[j].parts = append(outs[j].parts, c)
		}
		if typex.IsKV(o[0].Type()) {
			done = beam.ParDo(s, doneKV, o[0])
		} else {
			done = beam.ParDo(s, done1, o[0])
		}
	}
	return outs
}

// wavesOf makes body's outputs over the whole inputs into waved ones.
func wavesOf(cols []beam.PCollection) []waved {
	out := make([]waved, len(cols))
	for i, c := range cols {
		out[i] = whole(c)
	}
	return out
}

// splitFn sends each element to the output of its key's wave.
type splitFn struct {
	Waves int
}

type emitKY = func(int64, beam.Y)

func (f *splitFn) ProcessElement(key int64, v beam.Y,
	e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15 emitKY) {
	[maxWaves]emitKY{e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15}[waveOf(key, f.Waves)](key, v)
}

// fanOutFn sends a document's outbox to those of its targets that belong
// to wave Wave of Waves (all of them with one wave), as the messages the
// joins read: keyed by the centre, with the sender's key.
type fanOutFn struct {
	Waves, Wave int
}

func (f *fanOutFn) ProcessElement(key int64, o outbox, emit func(int64, nbrState)) {
	for _, x := range o.Targets {
		if waveOf(x, f.Waves) == f.Wave {
			emit(x, nbrState{Key: key, State: o.State})
		}
	}
}

// gateFn passes its input on once its side input, the previous wave's
// output, is complete: a runner starts a stage only when its side inputs
// are ready. It reads nothing of it.
type gateFn struct{}

func (gateFn) ProcessElement(key int64, v beam.Y, _ func(*int64) bool, emit emitKY) {
	emit(key, v)
}

// doneKV and done1 emit nothing: their output is complete when a wave's
// output is, which is all a gate waits for.
func doneKV(int64, beam.Y, func(int64)) {}

func done1(beam.X, func(int64)) {}
