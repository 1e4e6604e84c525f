package pluginapi

import (
	"github.com/harness-dev/harness/pluginapi/internal/convert"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// describeToPB is p's Describe answer: its description at this package's
// minor and SDK version, each tool saying it has a preview exactly when
// it has a Preview function. The protobuf mapping itself is package
// convert's, shared with the host side.
func describeToPB(p *Plugin) *pb.Describe_Response {
	d := Description{
		Name:          p.Name,
		Version:       p.Version,
		ProtocolMinor: ProtocolMinor,
		EventTypes:    p.EventTypes,
		SDKVersion:    SDKVersion(),
		StartEarly:    p.StartEarly,
		Capabilities:  p.Capabilities,
	}
	for _, t := range p.Tools {
		spec := t.Spec
		spec.HasPreview = t.Preview != nil
		d.Tools = append(d.Tools, spec)
	}
	return convert.DescriptionToProto(d)
}
