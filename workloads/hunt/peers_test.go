package hunt

// The tests run the Go peers too: this import registers them in
// catalog.Subjects, as the CLI's does.
import _ "github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
