package responses

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/harness-dev/harness/host/llm"
)

// params builds the Responses request for req.
func (p *Provider) params(model string, req llm.Request) (responses.ResponseNewParams, error) {
	prm := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(model),
		Store:   param.NewOpt(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	if req.System != "" {
		prm.Instructions = param.NewOpt(req.System)
	}
	if req.MaxTokens > 0 {
		prm.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if p.effort != "" {
		prm.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(p.effort), Summary: shared.ReasoningSummaryAuto}
	}
	for _, t := range req.Tools {
		params := map[string]any{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 {
			params = nil
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return prm, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
		}
		f := &responses.FunctionToolParam{Name: t.Name, Parameters: params, Strict: param.NewOpt(false)}
		if t.Description != "" {
			f.Description = param.NewOpt(t.Description)
		}
		prm.Tools = append(prm.Tools, responses.ToolUnionParam{OfFunction: f})
	}
	prm.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input(req.Messages, model)}
	return prm, nil
}

// input lays out the history as input items.
func input(ms []llm.Message, model string) responses.ResponseInputParam {
	var items responses.ResponseInputParam
	for _, m := range ms {
		switch m.Role {
		case llm.RoleTool:
			it := responses.ResponseInputItemParamOfFunctionCallOutput(m.Text)
			if len(m.Images) > 0 { // the text, then the images, as input_text and input_image
				out := responses.ResponseFunctionCallOutputItemListParam{responses.ResponseFunctionCallOutputItemParamOfInputText(m.Text)}
				for _, img := range m.Images {
					out = append(out, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
						ImageURL: param.NewOpt("data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)),
						Detail:   responses.ResponseInputImageContentDetailAuto}})
				}
				it = responses.ResponseInputItemParamOfFunctionCallOutput(out)
			}
			it.OfFunctionCallOutput.CallID = param.NewOpt(m.ToolCallID)
			items = append(items, it)
		case llm.RoleAssistant:
			for _, b := range m.Blocks {
				if b.Provider != Name || b.Type != "reasoning" || b.Model != "" && b.Model != model {
					continue
				}
				r := &responses.ResponseReasoningItemParam{ID: b.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}
				if b.Text != "" {
					r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: b.Text})
				}
				if b.Data != "" {
					r.EncryptedContent = param.NewOpt(b.Data)
				}
				items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: r})
			}
			if m.Text != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				args := c.Arguments
				if args == "" {
					args = "{}"
				}
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(args, c.ID, c.Name))
			}
		default:
			if len(m.Images) == 0 {
				items = append(items, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser))
				break
			}
			var parts responses.ResponseInputMessageContentListParam // the text, then the images as data URLs
			if m.Text != "" {
				parts = append(parts, responses.ResponseInputContentParamOfInputText(m.Text))
			}
			for _, img := range m.Images {
				p := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
				p.OfInputImage.ImageURL = param.NewOpt("data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
				parts = append(parts, p)
			}
			items = append(items, responses.ResponseInputItemParamOfMessage(parts, responses.EasyInputMessageRoleUser))
		}
	}
	return items
}
