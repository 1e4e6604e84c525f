package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/tool"
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
// without image input: the text of a message names its images, and a tool
// result's note of each image says the model does not take it
// (llm.ImageNoteNoInput).
func withoutImages(msgs []llm.Message) []llm.Message {
	if !slices.ContainsFunc(msgs, func(m llm.Message) bool { return len(m.Images) > 0 }) {
		return msgs
	}
	out := slices.Clone(msgs)
	for i, m := range out {
		if m.Role == llm.RoleTool {
			for _, img := range m.Images {
				n := len(img.Data)
				out[i].Text = strings.Replace(out[i].Text, llm.ImageNote(img.MimeType, n), llm.ImageNoteNoInput(img.MimeType, n), 1)
			}
		}
		out[i].Images = nil
	}
	return out
}

// storeResultImages stores the images of r (tool.BlockImage) as blobs of
// the session sessionID, so that its tool/result logs their hashes
// (tool.Block.Blob) and not their bytes. An image that cannot be stored
// stays named in r's text alone, and r's text says why.
func (r *Runtime) storeResultImages(sessionID string, res tool.Result) tool.Result {
	if !slices.ContainsFunc(res.Blocks, func(b tool.Block) bool { return b.Kind == tool.BlockImage }) {
		return res
	}
	s, ok := r.sessions.Session(sessionID)
	res.Blocks = slices.Clone(res.Blocks)
	for i, b := range res.Blocks {
		if b.Kind != tool.BlockImage || len(b.Data) == 0 {
			continue
		}
		err := errors.New("the session is not open")
		if ok {
			res.Blocks[i].Blob, err = s.PutBlob(b.Data)
		}
		if err != nil {
			r.log.Warn("tool result image not stored", "session", sessionID, "error", err)
			res.Content += "\n(" + llm.ImageNote(b.MIMEType, len(b.Data)) + " was not kept: " + err.Error() + ")"
			res.Blocks[i].Blob = ""
		}
		res.Blocks[i].Data = nil
	}
	return res
}
