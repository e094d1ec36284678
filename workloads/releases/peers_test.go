package releases

// The Go peers (redsync...) are subjects of the catalog only when linked.
import _ "github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
