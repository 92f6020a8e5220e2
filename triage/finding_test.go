package triage

import (
	"slices"
	"testing"
)

func TestApply(t *testing.T) {
	fs := []Finding{{Kind: KindTool, Name: "a", Labels: []Label{{SensitivePath, High, "x"}, {NewURL, Medium, "u"}}},
		{Kind: KindTool, Name: "b", Labels: []Label{{SensitivePath, High, "y"}}}}
	got := Apply(fs, []Override{{Label: SensitivePath, Severity: Low}, {Item: "b", Label: SensitivePath}})
	if !slices.Equal(got[0].Labels, []Label{{NewURL, Medium, "u"}, {SensitivePath, Low, "x"}}) || len(got[1].Labels) != 0 {
		t.Errorf("got %+v", got)
	}
	if fs[0].Labels[0].Severity != High {
		t.Error("Apply changed its input")
	}
}
