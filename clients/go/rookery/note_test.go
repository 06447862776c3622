package rookery

import (
	"math"
	"strings"
	"testing"
)

func TestANoteWithinBoundsConverts(t *testing.T) {
	n := &Note{Text: strings.Repeat("x", 512), Values: map[string]float64{"samples": 400, "a.b-c_9": -1.5}}
	p, err := n.Proto()
	if err != nil || len(p.GetValues()) != 2 || len(p.GetText()) != 512 {
		t.Fatalf("got %v, %v", p, err)
	}
}

func TestEachBoundOfANoteIsAClearError(t *testing.T) {
	many := map[string]float64{}
	for i := 0; i < 17; i++ {
		many[strings.Repeat("v", i+1)] = 1
	}
	cases := map[string]*Note{
		"514 bytes": {Text: strings.Repeat("é", 257)},
		"17 values": {Values: many},
		"name \"\"": {Values: map[string]float64{"": 1}},
		"has space": {Values: map[string]float64{"has space": 1}},
		"finite":    {Values: map[string]float64{"nan": math.NaN()}},
	}
	for want, n := range cases {
		if err := n.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v", want, err)
		}
	}
}

func TestAFallbackReasonIsCutAtACharacter(t *testing.T) {
	if got := FallbackMark(strings.Repeat("é", 200)).GetReason(); len(got) != 256 {
		t.Fatalf("got %d bytes", len(got))
	}
}
