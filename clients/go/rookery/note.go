package rookery

import (
	"fmt"
	"math"
	"unicode/utf8"

	pb "rookery/kit/gen/rookery/v1"
)

// The bounds of a BotNote and a Fallback (proto/rookery/v1/notes.proto).
const (
	MaxNoteTextBytes       = 512 // bytes of UTF-8 in a note's text
	MaxNoteValues          = 16  // named numbers in a note
	MaxNoteNameChars       = 32  // characters in a number's name (at least 1, of [A-Za-z0-9_.-])
	MaxFallbackReasonBytes = 256 // bytes of UTF-8 in a fallback's reason (longer ones are cut)
)

// Note is a bot's note on one reply: free text and named numbers (e.g. samples searched,
// expected points). Private to the seat until the hand is scored; public after, like its cards.
type Note struct {
	Text   string
	Values map[string]float64
}

// Noter is a Bot that notes its replies: Note is called right after each successful Act and
// returns the note on that action, or nil. A note outside the bounds is dropped with a logged
// error; the action still goes.
type Noter interface {
	Note() *Note
}

// Validate checks the note against the bounds of BotNote.
func (n *Note) Validate() error {
	if len(n.Text) > MaxNoteTextBytes {
		return fmt.Errorf("note text is %d bytes of UTF-8; at most %d", len(n.Text), MaxNoteTextBytes)
	}
	if len(n.Values) > MaxNoteValues {
		return fmt.Errorf("note has %d values; at most %d", len(n.Values), MaxNoteValues)
	}
	for name, value := range n.Values {
		if !validNoteName(name) {
			return fmt.Errorf("note value name %q must be 1 to %d characters of [A-Za-z0-9_.-]", name, MaxNoteNameChars)
		}
		if math.IsNaN(value) || math.IsInf(value, 0) {
			return fmt.Errorf("note value %q is %v; values must be finite", name, value)
		}
	}
	return nil
}

func validNoteName(name string) bool {
	if len(name) < 1 || len(name) > MaxNoteNameChars {
		return false
	}
	for _, r := range name {
		ok := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' || r == '.' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// Proto returns the note as a BotNote, or the error that says which bound it breaks.
func (n *Note) Proto() (*pb.BotNote, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	values := make(map[string]float64, len(n.Values))
	for k, v := range n.Values {
		values[k] = v
	}
	return &pb.BotNote{Text: n.Text, Values: values}, nil
}

// FallbackMark is the Fallback with reason, cut to MaxFallbackReasonBytes at a character.
func FallbackMark(reason string) *pb.Fallback {
	if len(reason) > MaxFallbackReasonBytes {
		end := MaxFallbackReasonBytes
		for end > 0 && !utf8.RuneStart(reason[end]) {
			end--
		}
		reason = reason[:end]
	}
	return &pb.Fallback{Reason: reason}
}
