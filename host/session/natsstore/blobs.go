package natsstore

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/nats-io/nats.go/jetstream"
)

// blobStore is the object store of the sessions' blobs, made on first
// use: <id>/<hash> per blob.
func (b *Backend) blobStore() (jetstream.ObjectStore, error) {
	b.blobsOnce.Do(func() {
		ctx, cancel := b.ctx()
		defer cancel()
		b.blobs, b.blobsErr = b.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      b.opts.Blobs,
			Description: "harness sessions' blobs (image bytes), <session>/<sha256>",
			Storage:     jetstream.FileStorage,
			Replicas:    b.opts.Replicas,
		})
	})
	return b.blobs, b.blobsErr
}

// PutBlob implements session.BlobBackend.
func (b *Backend) PutBlob(id, hash string, data []byte) error {
	store, err := b.blobStore()
	if err != nil {
		return fmt.Errorf("open blob store %s: %w", b.opts.Blobs, err)
	}
	ctx, cancel := b.ctx()
	defer cancel()
	name := id + "/" + hash
	if info, err := store.GetInfo(ctx, name); err == nil && info.Size == uint64(len(data)) && !info.Deleted {
		return nil // already there
	}
	if _, err := store.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("put blob %s: %w", name, err)
	}
	return nil
}

// Blob implements session.BlobBackend.
func (b *Backend) Blob(id, hash string) ([]byte, error) {
	store, err := b.blobStore()
	if err != nil {
		return nil, fmt.Errorf("open blob store %s: %w", b.opts.Blobs, err)
	}
	ctx, cancel := b.ctx()
	defer cancel()
	data, err := store.GetBytes(ctx, id+"/"+hash)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fs.ErrNotExist
	}
	return data, err
}
