// Package natsstore keeps harness sessions in NATS JetStream: a
// [session.Backend] that every host pointed at the same server shares, so
// that a session made on one machine is listed, read, continued and taken
// over on another. It is built on the official client
// (github.com/nats-io/nats.go and its jetstream package); the host speaks
// no NATS of its own.
//
// # Layout
//
// One stream (Options.Stream, "HARNESS_SESSIONS") holds every session,
// one subject per session: <Options.Subject>.<id>, a '.' of the id
// written '='. The subject's first message is the log's header, each
// later one a record, in the bytes a JSONL log holds on one line (package
// eventlog's MarshalHeader and MarshalRecord), so that export and import
// between backends are a copy. The record's seq is its position on the
// subject after the header.
//
// # Contract
//
//   - Single writer: a writer holds a lease, a key of the KV bucket
//     Options.Leases whose value names the holder (host and pid). The
//     bucket's TTL (Options.LeaseTTL, default 5 s) ends a lease that is
//     not renewed; the writer renews it three times a TTL and deletes it
//     on Close. Open of a held log fails at once with a *[LockedError]
//     (errors.Is eventlog.ErrLocked) naming the holder; a writer that
//     died (SIGKILL, a cut network) leaves its lease to expire, and the
//     next Open after that takes the session over.
//   - No interleaving: every append is published with the expected last
//     sequence of its subject, so that even a writer that lost its lease
//     without knowing cannot write after another: JetStream refuses it,
//     and the Log refuses every later Append.
//   - Durable on return: Append returns once JetStream acknowledged the
//     message (stored on the server, and on a quorum of replicas when the
//     stream has them). An append whose answer is lost (a timeout) is
//     checked against the subject's last message before it is reported
//     failed, so an acknowledged-but-unanswered record is neither lost nor
//     written twice.
//   - Blobs (the bytes of a session's images) are objects of the object
//     store Options.Blobs, named <id>/<sha256>, stored before the event
//     that names them is appended.
//   - Listing: IDs are the stream's subjects (the server's per-subject
//     state), not a scan of the messages. The index
//     ([session.IndexBackend]) is the KV bucket Options.Index
//     ("harness-index"): one key per session (its subject's last token),
//     whose value is its session.IndexedSummary as JSON, put by its
//     writer. Index reads the stream's per-subject counts (a log's length
//     is its count less the header) and every value of the bucket; a
//     value that does not decode strictly (unknown fields included) is
//     left out, so that its session's log is read.
//
// A record larger than the server's max_payload (1 MB by default) is
// refused by the server; the Append fails with its error.
package natsstore
