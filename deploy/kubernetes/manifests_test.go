package kubernetes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// kinds maps apiVersion/kind to a new typed object; anything else in the directory is an error.
var kinds = map[string]func() any{
	"v1/Namespace":                           func() any { return &corev1.Namespace{} },
	"v1/ServiceAccount":                      func() any { return &corev1.ServiceAccount{} },
	"v1/ConfigMap":                           func() any { return &corev1.ConfigMap{} },
	"v1/PersistentVolumeClaim":               func() any { return &corev1.PersistentVolumeClaim{} },
	"v1/Service":                             func() any { return &corev1.Service{} },
	"apps/v1/Deployment":                     func() any { return &appsv1.Deployment{} },
	"autoscaling/v2/HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"policy/v1/PodDisruptionBudget":          func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1/NetworkPolicy":     func() any { return &networkingv1.NetworkPolicy{} },
}

var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// decodeStrict decodes one YAML document into its typed object: duplicate keys and fields
// the type does not have are errors (a misspelt securityContext field would otherwise be
// dropped silently by the API server's lenient decoding).
func decodeStrict(doc []byte) (string, any, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return "", nil, err
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &tm); err != nil {
		return "", nil, err
	}
	key := tm.APIVersion + "/" + tm.Kind
	mk, ok := kinds[key]
	if !ok {
		return key, nil, fmt.Errorf("unexpected apiVersion/kind %s", key)
	}
	obj := mk()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return key, nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return key, nil, errors.New("trailing data")
	}
	return key, obj, nil
}

// manifests decodes every *.yaml here.
func manifests(t *testing.T) map[string][]any {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string][]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, doc := range docSep.Split(string(data), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			key, obj, err := decodeStrict([]byte(doc))
			if err != nil {
				t.Fatalf("%s document %d (%s): %v", f, i, key, err)
			}
			out[key] = append(out[key], obj)
			n++
		}
		if n == 0 {
			t.Fatalf("%s has no object", f)
		}
	}
	return out
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func TestStrictDecodingCatchesTypos(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      securityContext: {runAsNonRot: true}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: x}\nmetadata: {name: y}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
	} {
		if _, _, err := decodeStrict([]byte(doc)); err == nil {
			t.Errorf("accepted:\n%s", doc)
		}
	}
}

func one[T any](t *testing.T, m map[string][]any, key string) T {
	t.Helper()
	if len(m[key]) != 1 {
		t.Fatalf("want exactly one %s, have %d", key, len(m[key]))
	}
	return m[key][0].(T)
}

func TestManifests(t *testing.T) {
	m := manifests(t)
	ns := one[*corev1.Namespace](t, m, "v1/Namespace")
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace does not enforce the restricted Pod Security Standard")
	}
	for key, objs := range m {
		for _, o := range objs {
			meta := objectMeta(o)
			if key != "v1/Namespace" && meta.Namespace != ns.Name {
				t.Errorf("%s %s is in namespace %q, want %q", key, meta.Name, meta.Namespace, ns.Name)
			}
		}
	}
	sa := one[*corev1.ServiceAccount](t, m, "v1/ServiceAccount")
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Error("service account mounts an API token")
	}

	d := one[*appsv1.Deployment](t, m, "apps/v1/Deployment")
	pod := d.Spec.Template
	podLabels := pod.Labels
	if d.Spec.Selector == nil || !matches(d.Spec.Selector.MatchLabels, podLabels) {
		t.Fatal("deployment selector does not match its pods")
	}
	ps := pod.Spec
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken || ps.ServiceAccountName != sa.Name {
		t.Error("pod: service account token mounted, or another service account")
	}
	psc := ps.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 ||
		psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext not restricted: %+v", psc)
	}
	if ps.HostNetwork || ps.HostPID || ps.HostIPC {
		t.Error("pod shares a host namespace")
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range ps.Volumes {
		if v.HostPath != nil {
			t.Errorf("volume %s is a hostPath", v.Name)
		}
		volumes[v.Name] = v
	}
	if len(ps.Containers) == 0 || len(ps.InitContainers) != 0 {
		t.Fatal("want containers and no init containers")
	}
	for _, c := range ps.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 ||
			(sc.Privileged != nil && *sc.Privileged) || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot ||
			sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("container %s securityContext not restricted: %+v", c.Name, sc)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := c.Resources.Requests[r]; !ok {
				t.Errorf("container %s has no %s request", c.Name, r)
			}
			if _, ok := c.Resources.Limits[r]; !ok {
				t.Errorf("container %s has no %s limit", c.Name, r)
			}
		}
		if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
			t.Errorf("container %s: liveness probe is not /healthz", c.Name)
		}
		if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" {
			t.Errorf("container %s: readiness probe is not /readyz", c.Name)
		}
		if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "http" && p.ContainerPort == 8080 }) {
			t.Errorf("container %s does not expose http/8080", c.Name)
		}
		// /metrics names every tenant: on a listener of its own, never the MCP port.
		if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "metrics" && p.ContainerPort == 9090 }) ||
			!slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "MCPBASH_METRICS_ADDR" && e.Value == "0.0.0.0:9090" }) ||
			d.Spec.Template.Annotations["prometheus.io/port"] != "9090" {
			t.Errorf("container %s: /metrics is not on its own listener, metrics/9090, where Prometheus scrapes", c.Name)
		}
		if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
			return e.Name == "GOMEMLIMIT" && e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory"
		}) {
			t.Errorf("container %s: GOMEMLIMIT does not follow the memory limit", c.Name)
		}
		if strings.HasSuffix(c.Image, ":latest") || !strings.Contains(c.Image, ":") {
			t.Errorf("container %s: pin the image tag (%s)", c.Name, c.Image)
		}
		for _, vm := range c.VolumeMounts {
			v, ok := volumes[vm.Name]
			if !ok {
				t.Errorf("mount %s names no volume", vm.Name)
				continue
			}
			if (v.ConfigMap != nil || v.Secret != nil) && !vm.ReadOnly {
				t.Errorf("configuration mount %s is writable", vm.MountPath)
			}
			if vm.SubPath != "" && v.ConfigMap != nil {
				t.Errorf("mount %s uses subPath: ConfigMap updates (tenants reload) would never arrive", vm.MountPath)
			}
		}
		for _, e := range c.Env {
			if strings.Contains(e.Name, "TOKEN") && e.Value != "" {
				t.Errorf("secret %s is written in the manifest; use a secretKeyRef", e.Name)
			}
		}
	}
	if ps.TerminationGracePeriodSeconds == nil || *ps.TerminationGracePeriodSeconds < 30 {
		t.Error("terminationGracePeriodSeconds too short to drain in-flight calls")
	}

	svc := one[*corev1.Service](t, m, "v1/Service")
	// One port, http: the Service never exposes the metrics listener.
	if !matches(svc.Spec.Selector, podLabels) || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "http" {
		t.Errorf("service does not route to the pods' http port: %+v", svc.Spec)
	}
	hpa := one[*autoscalingv2.HorizontalPodAutoscaler](t, m, "autoscaling/v2/HorizontalPodAutoscaler")
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != d.Name || hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 {
		t.Errorf("hpa does not scale the deployment from 2 replicas: %+v", hpa.Spec)
	}
	pdb := one[*policyv1.PodDisruptionBudget](t, m, "policy/v1/PodDisruptionBudget")
	if pdb.Spec.Selector == nil || !matches(pdb.Spec.Selector.MatchLabels, podLabels) || pdb.Spec.MinAvailable == nil {
		t.Errorf("pdb does not cover the pods: %+v", pdb.Spec)
	}
	cm := one[*corev1.ConfigMap](t, m, "v1/ConfigMap")
	if v, ok := volumes["config"]; !ok || v.ConfigMap == nil || v.ConfigMap.Name != cm.Name {
		t.Error("the config volume does not mount the ConfigMap")
	}
	for _, k := range []string{"tenants.json", "auth.json"} {
		if !json.Valid([]byte(cm.Data[k])) {
			t.Errorf("ConfigMap %s is not valid JSON", k)
		}
	}
	pvc := one[*corev1.PersistentVolumeClaim](t, m, "v1/PersistentVolumeClaim")
	if v, ok := volumes["tenants"]; !ok || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Name {
		t.Error("the tenants volume does not mount the claim")
	}
	checkNetworkPolicy(t, one[*networkingv1.NetworkPolicy](t, m, "networking.k8s.io/v1/NetworkPolicy"), podLabels)
}

func checkNetworkPolicy(t *testing.T, np *networkingv1.NetworkPolicy, podLabels map[string]string) {
	t.Helper()
	if !matches(np.Spec.PodSelector.MatchLabels, podLabels) {
		t.Fatal("network policy does not select the pods")
	}
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		t.Fatal("network policy must restrict ingress and egress")
	}
	for _, r := range np.Spec.Ingress {
		for _, p := range r.Ports {
			switch {
			case p.Port == nil:
				t.Error("an ingress rule allows every port")
			case p.Port.IntValue() == 9090 && len(r.From) == 0:
				t.Error("ingress opens the metrics port to everyone")
			case p.Port.IntValue() != 8080 && p.Port.IntValue() != 9090:
				t.Errorf("ingress allows port %v", p.Port)
			}
		}
		if len(r.Ports) == 0 {
			t.Error("an ingress rule allows every port")
		}
	}
	dns, https := false, false
	for _, r := range np.Spec.Egress {
		if len(r.Ports) == 0 {
			t.Error("an egress rule allows every port")
		}
		for _, p := range r.Ports {
			switch p.Port.IntValue() {
			case 53:
				dns = true
			case 443:
				https = true
				for _, to := range r.To {
					if to.IPBlock == nil || !slices.Contains(to.IPBlock.Except, "169.254.0.0/16") || !slices.Contains(to.IPBlock.Except, "10.0.0.0/8") {
						t.Errorf("HTTPS egress reaches private or metadata addresses: %+v", to)
					}
				}
			default:
				t.Errorf("egress to port %v", p.Port)
			}
		}
	}
	if !dns || !https {
		t.Errorf("egress: dns %v https %v", dns, https)
	}
}

func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

type metaObject interface {
	GetName() string
	GetNamespace() string
}

func objectMeta(o any) struct{ Name, Namespace string } {
	mo := o.(metaObject)
	return struct{ Name, Namespace string }{mo.GetName(), mo.GetNamespace()}
}
