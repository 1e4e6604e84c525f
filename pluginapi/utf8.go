package pluginapi

import (
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// validUTF8 replaces the invalid bytes of every string field of m, at any
// depth, with U+FFFD and returns how many strings it changed. Protobuf
// strings must be UTF-8: without it, a tool whose result holds raw bytes
// (a Latin-1 file's line, a binary's output) would fail in grpc's
// marshaling with "string field contains invalid UTF-8", an error that
// names neither the tool nor the field. The caller says so where the model
// and the log see it.
func validUTF8(m protoreflect.Message) int {
	n := 0
	fix := func(s string) (string, bool) {
		if utf8.ValidString(s) {
			return s, false
		}
		n++
		return strings.ToValidUTF8(s, "\uFFFD"), true
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				switch fd.Kind() {
				case protoreflect.StringKind:
					if s, ok := fix(l.Get(i).String()); ok {
						l.Set(i, protoreflect.ValueOfString(s))
					}
				case protoreflect.MessageKind, protoreflect.GroupKind:
					n += validUTF8(l.Get(i).Message())
				}
			}
		case fd.IsMap():
			mp := v.Map()
			var bad []protoreflect.MapKey
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.StringKind && !utf8.ValidString(k.String()) {
					bad = append(bad, k)
				}
				switch fd.MapValue().Kind() {
				case protoreflect.StringKind:
					if s, ok := fix(mv.String()); ok {
						mp.Set(k, protoreflect.ValueOfString(s))
					}
				case protoreflect.MessageKind, protoreflect.GroupKind:
					n += validUTF8(mv.Message())
				}
				return true
			})
			for _, k := range bad {
				s, _ := fix(k.String())
				mv := mp.Get(k)
				mp.Clear(k)
				mp.Set(protoreflect.ValueOfString(s).MapKey(), mv)
			}
		case fd.Kind() == protoreflect.StringKind:
			if s, ok := fix(v.String()); ok {
				m.Set(fd, protoreflect.ValueOfString(s))
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			n += validUTF8(v.Message())
		}
		return true
	})
	return n
}
