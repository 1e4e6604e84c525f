package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
)

// ErrImagesUnsupported is returned, wrapped, for a prompt with images when
// the session's model does not take them (llm.ModelInfo.Images). It comes
// before anything is logged or sent.
var ErrImagesUnsupported = errors.New("the model does not accept images")

// noImages is the refusal of a prompt with images: one line, saying what
// to do; it matches ErrImagesUnsupported.
type noImages struct{ model string }

func (e noImages) Error() string {
	return fmt.Sprintf("model %s does not accept images: switch to a model that does, or, if it does, set images = true in its [[models]] entry of the config file", e.model)
}

func (e noImages) Is(target error) bool { return target == ErrImagesUnsupported }

// storeImages readies the images of prompt for the log: each image block's
// bytes (Content.Data) go to s's blob folder and the block keeps only
// their hash (Content.Blob), so the log never holds the bytes. A prompt
// without images is returned as is; one with images for a model without
// image input is refused with ErrImagesUnsupported.
func (r *Runtime) storeImages(s *session.Session, prompt []event.Content) ([]event.Content, error) {
	if !slices.ContainsFunc(prompt, func(c event.Content) bool { return c.Type == event.ContentImage }) {
		return prompt, nil
	}
	if m, _ := r.SessionModel(s); !m.Images {
		return nil, noImages{m.Name}
	}
	out := slices.Clone(prompt)
	for i, c := range out {
		if c.Type != event.ContentImage {
			continue
		}
		if len(c.Data) == 0 {
			return nil, fmt.Errorf("image %d of the prompt has no data", i)
		}
		hash, err := s.PutBlob(c.Data)
		if err != nil {
			return nil, err
		}
		out[i].Blob, out[i].Data = hash, nil
	}
	return out, nil
}

// withoutImages is msgs with no message carrying images, for a model
// without image input (the text of a message names its images).
func withoutImages(msgs []llm.Message) []llm.Message {
	if !slices.ContainsFunc(msgs, func(m llm.Message) bool { return len(m.Images) > 0 }) {
		return msgs
	}
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Images = nil
	}
	return out
}
