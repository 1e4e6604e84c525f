package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/toolbox"
)

// printReloads shows the last reload of each plugin that has one.
func printReloads(w io.Writer, infos []toolbox.PluginInfo) {
	for _, p := range infos {
		r := p.LastReload
		if r == nil {
			continue
		}
		name := r.Plugin
		if name == "" {
			name = p.Path
		}
		if r.Err != "" {
			fmt.Fprintf(w, "%s: last reload %s failed at %s: %s; the previous version kept serving\n",
				name, r.At.Local().Format(time.TimeOnly), r.Stage, r.Err)
			continue
		}
		var stages []string
		for _, s := range r.Stages {
			stages = append(stages, fmt.Sprintf("%s %s", s.Name, s.Elapsed.Round(100*time.Microsecond)))
		}
		fmt.Fprintf(w, "%s: last reload %s (%s %s → %s): serving after %s; %s\n",
			name, r.At.Local().Format(time.TimeOnly), r.Change, short(r.FromSHA), short(r.ToSHA),
			r.Serving.Round(time.Millisecond), strings.Join(stages, ", "))
	}
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	if sum == "" {
		return "-"
	}
	return sum
}
