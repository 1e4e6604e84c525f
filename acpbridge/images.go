package acpbridge

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/shorten"
)

// ErrInvalidPrompt is what a Session returns, wrapped, from Prompt when it
// refuses the prompt before any turn runs (harness: images for a model
// without image input). The bridge answers it with -32602 "Invalid
// params", the error saying why: the session is unchanged.
var ErrInvalidPrompt = errors.New("invalid prompt")

// imageContent is the content of image block i: its bytes in Data, for
// the Session to store (never logged inline). The MIME type must be an
// image type and the data base64.
func imageContent(i int, img *acp.ContentBlockImage) (event.Content, error) {
	mime := strings.ToLower(strings.TrimSpace(img.MimeType))
	if !strings.HasPrefix(mime, "image/") || strings.ContainsAny(mime, " ;,\"\\") {
		return event.Content{}, fmt.Errorf("prompt block %d is an image of type %s: want an image MIME type such as image/png", i, strconv.Quote(shorten.Bytes(img.MimeType, 64)))
	}
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return event.Content{}, fmt.Errorf("prompt block %d is an image whose data is not base64: %s", i, shorten.OneLine(err.Error()))
	}
	if len(data) == 0 {
		return event.Content{}, fmt.Errorf("prompt block %d is an image without data", i)
	}
	return event.Content{Type: event.ContentImage, MimeType: mime, Data: data}, nil
}
