// Package plugintest tests harness plugins: [Start] serves a plugin in the
// test's process and connects a real pluginhost.Client to it, through
// go-plugin and gRPC as in production, against a fake host ([FakeHost]);
// [Conformance] checks the rules every plugin must keep, on a plugin served
// in process or on a launched binary.
//
// A plugin's tests typically start with
//
//	c := plugintest.Start(t, myPlugin())
//	plugintest.Conformance(t, c)
//
// and then call tools through c.Execute (or [Exec]) and check their
// Results and proposed events.
package plugintest
