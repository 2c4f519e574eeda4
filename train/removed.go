package train

import "github.com/gtformer/gtformer/model"

// removedOptions are the training options of earlier builds that this one
// no longer has (tried and not adopted; docs/journal.md keeps their
// record). A checkpoint that holds one at its off value resumes without
// it; one trained with it on is refused.
var removedOptions = []model.Removed{
	{In: []string{"options"}, Key: "mix_lr_scale", Off: model.OffAt(1)},
	{In: []string{"options"}, Key: "norm_stick_at_end"},
	{In: []string{"options"}, Key: "fit_mix_weight"},
	{In: []string{"options"}, Key: "final_prune_by", Off: model.OffUnless("words")},
	{In: []string{"options"}, Key: "final_merge_overlap"},
	{In: []string{"options"}, Key: "grow_until"},
	{In: []string{"options"}, Key: "grow_place"},
	{In: []string{"options"}, Key: "grow_by", Off: model.OffUnless("share")},
	{In: []string{"options"}, Key: "grow_before_last"},
	// The command's flags, which earlier builds recorded beside the
	// options: the options themselves hold the values.
	{In: []string{"options"}, Key: "flags", Off: func(any) bool { return true }},
}
