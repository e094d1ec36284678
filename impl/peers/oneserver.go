package peers

import (
	"fmt"

	"github.com/redis/go-redis/v9"
)

// oneServer returns the options of the run's client to one server, for an
// adapter whose library release needs a client of another go-redis (lib
// names it in the error when the run's client is not one server's).
func oneServer(rdb redis.UniversalClient, lib string) (*redis.Options, error) {
	c, ok := rdb.(*redis.Client)
	if !ok {
		return nil, fmt.Errorf("%s: want one server's client, got %T", lib, rdb)
	}
	return c.Options(), nil
}
