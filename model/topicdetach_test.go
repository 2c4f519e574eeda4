package model

import (
	"strings"
	"testing"
)

// TestTopicDetach: under Config.TopicDetach the topic losses (the
// reconstruction and the level prior) give the encoder, the graph layers
// and every other parameter outside the tree no gradient: theirs are the
// same, bit for bit, with the topic losses' weights at zero, while the
// tree's parameters still learn from the topic losses. Without the detach
// the topic losses do reach the encoder (so the comparison can fail).
func TestTopicDetach(t *testing.T) {
	grads := func(detach, topicLoss bool) ([]string, [][]float32) {
		f := newGradFixture(t, gradCase{name: "detach", geometry: "hyperbolic", mut: func(c *Config) {
			c.TopicDetach = detach
			c.LambdaLevel = 0.5
			if !topicLoss {
				c.LambdaTopic, c.LambdaLevel = 0, 0
			}
		}})
		return paramNames(f.m.Params()), f.analytic(t)
	}
	for _, detach := range []bool{true, false} {
		names, with := grads(detach, true)
		_, without := grads(detach, false)
		outside, tree := 0, 0 // parameters whose gradient the topic losses change
		for i, name := range names {
			same := true
			for j := range with[i] {
				if with[i][j] != without[i][j] {
					same = false
					break
				}
			}
			if same {
				continue
			}
			if strings.HasPrefix(name, "tree.") {
				tree++
			} else {
				outside++
				if detach {
					t.Errorf("detached: the topic losses change the gradient of %s", name)
				}
			}
		}
		if tree == 0 {
			t.Errorf("detach %v: the topic losses change no tree parameter's gradient", detach)
		}
		if !detach && outside == 0 {
			t.Error("without the detach the topic losses reach no parameter outside the tree: the comparison cannot fail")
		}
	}
}
