package host

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipelineFiles are where tenancy may be named: the pipeline, the hosting links it installs,
// serve --http that installs them, and doctor's report of the tenants file.
var pipelineFiles = map[string]bool{"pipeline.go": true, "hosting.go": true, "httpserve.go": true, "doctor.go": true}

// TestCoreNeverAsksTheTenant holds the layering of issue 28: the core (handlers, CallTool,
// lists, resources, prompts, sessions, transports) asks the request's scope what it may see
// and do; it never names the tenants package's tenant, store or admission, never reads the
// Server's hosting state, and never branches on whether there is a tenant.
func TestCoreNeverAsksTheTenant(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || pipelineFiles[name] {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "tenants" {
					switch x.Sel.Name {
					case "Tenant", "Store", "Admission", "Ticket", "Open", "Lookup":
						t.Errorf("%s: the core names tenants.%s; ask the request's scope (pipeline.go)", fset.Position(x.Pos()), x.Sel.Name)
					}
				}
				switch x.Sel.Name {
				case "host", "tenantFor", "tenantUsable", "tenantJob", "withTenantWorkers", "tenantPage":
					t.Errorf("%s: the core reaches for hosting state (.%s); ask the request's scope (pipeline.go)", fset.Position(x.Pos()), x.Sel.Name)
				}
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					break
				}
				for _, side := range []ast.Expr{x.X, x.Y} {
					if sel, ok := side.(*ast.SelectorExpr); ok && strings.EqualFold(sel.Sel.Name, "tenant") {
						if other, ok := otherSide(x, side).(*ast.Ident); ok && other.Name == "nil" {
							t.Errorf("%s: the core branches on whether there is a tenant", fset.Position(x.Pos()))
						}
					}
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("only %d files checked: is the test running in host/?", checked)
	}
}

func otherSide(b *ast.BinaryExpr, side ast.Expr) ast.Expr {
	if side == b.X {
		return b.Y
	}
	return b.X
}

// TestSeats: a scope holds at most its listens and subscriptions; a listen asking for more
// than is left is refused whole; releases give them back, once.
func TestSeats(t *testing.T) {
	srv := testServer(t)
	sc := fixedSeats{operatorScope{srv}, seatLimits{listens: 2, subscriptions: 5}}
	var table seatTable
	r1, err := table.take(sc, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.take(sc, true, 3); causeOf(err) != "subscriptions" {
		t.Fatalf("3 more subscriptions past 5: %v", err)
	}
	r2, err := table.take(sc, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.take(sc, true, 0); causeOf(err) != "listens" {
		t.Fatalf("a third listen: %v", err)
	}
	if _, err := table.take(sc, false, 1); causeOf(err) != "subscriptions" {
		t.Fatalf("a subscription past 5: %v", err)
	}
	r1()
	r1() // once only
	r3, err := table.take(sc, false, 3)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()
	if len(table.held) != 0 {
		t.Fatalf("seats left after every release: %+v", table.held)
	}
}

type fixedSeats struct {
	operatorScope
	lim seatLimits
}

func (f fixedSeats) seats() seatLimits { return f.lim }
