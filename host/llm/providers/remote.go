package providers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/llm/openai"
	"github.com/harness-dev/harness/host/shorten"
)

// ListRemote asks an OpenAI-compatible provider (deepseek, openai, a
// local server) for the names of the models it serves: GET BaseURL/models.
// The API key comes from the environment as for Open and is never
// shown.
func ListRemote(ctx context.Context, c Provider) ([]string, error) {
	e := c.Getenv
	if e == nil {
		e = func(string) string { return "" }
	}
	base, keyVar := c.BaseURL, "OPENAI_API_KEY"
	switch c.Name {
	case "deepseek":
		base, keyVar = cmp.Or(base, openai.DeepSeekBaseURL), openai.DeepSeekKeyEnv
	case "openai":
		base = cmp.Or(base, openAIBaseURL)
	default:
		return nil, fmt.Errorf("provider %s has no model list to ask for: use deepseek or openai (with --base-url for a local server)", c.Name)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--base-url is not an http(s) URL")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	endpoint := u.JoinPath("models")
	shown := *endpoint
	shown.User, shown.RawQuery = nil, ""
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w", shown.String(), err)
	}
	key, from := apiKey(e, keyVar)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %s", shown.String(), shorten.OneLine(redact(err.Error(), key)))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("list models at %s: read the answer: %w", shown.String(), err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("list models at %s: %s; check %s", shown.String(), resp.Status, from)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("list models at %s: %s: %s", shown.String(), resp.Status, shorten.Bytes(redact(string(body), key), 200))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("list models at %s: the answer is not a model list: %w", shown.String(), err)
	}
	names := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			names = append(names, m.ID)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// redact removes the key from text a server or a transport echoed.
func redact(text, key string) string {
	if key == "" {
		return text
	}
	return strings.ReplaceAll(text, key, "[key]")
}
