// Package kubernetes holds the Kubernetes manifests of a hosted mcp-bash (the *.yaml files
// beside this one, applied with `kubectl apply -f deploy/kubernetes/`); its test decodes every
// manifest strictly into the k8s.io/api types and checks the security settings.
package kubernetes
