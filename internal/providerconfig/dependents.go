package providerconfig

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

// DependentsIndex is the field index on every managed resource kind that
// holds the IndexValue of the ProviderConfig it resolves to. Counting
// dependents from the resources themselves, instead of from usage objects,
// means nothing has to be created inside a terminating namespace and garbage
// collection cannot make the count drop early.
const DependentsIndex = "coder.crossplane.io/providerconfig"

const errListDependents = "cannot list dependents"

// A ManagedKind is one kind of managed resource that can depend on a
// ProviderConfig.
type ManagedKind struct {
	// Kind as humans read it, e.g. "AIGatewayKey".
	Kind string
	// New returns an empty object of the kind.
	New func() resource.Managed
	// NewList returns an empty list of the kind.
	NewList func() resource.ManagedList
}

// ManagedKinds are every managed resource kind of the provider, both scopes.
func ManagedKinds() []ManagedKind {
	return []ManagedKind{
		{
			Kind:    namespacedaiv1alpha1.AIGatewayKeyKind,
			New:     func() resource.Managed { return &namespacedaiv1alpha1.AIGatewayKey{} },
			NewList: func() resource.ManagedList { return &namespacedaiv1alpha1.AIGatewayKeyList{} },
		},
		{
			Kind:    namespacedaiv1alpha1.AIProviderKind,
			New:     func() resource.Managed { return &namespacedaiv1alpha1.AIProvider{} },
			NewList: func() resource.ManagedList { return &namespacedaiv1alpha1.AIProviderList{} },
		},
		{
			Kind:    clusteraiv1alpha1.AIGatewayKeyKind,
			New:     func() resource.Managed { return &clusteraiv1alpha1.AIGatewayKey{} },
			NewList: func() resource.ManagedList { return &clusteraiv1alpha1.AIGatewayKeyList{} },
		},
		{
			Kind:    clusteraiv1alpha1.AIProviderKind,
			New:     func() resource.Managed { return &clusteraiv1alpha1.AIProvider{} },
			NewList: func() resource.ManagedList { return &clusteraiv1alpha1.AIProviderList{} },
		},
	}
}

// IndexDependents extracts the DependentsIndex value of a managed resource.
func IndexDependents(o client.Object) []string {
	mg, ok := o.(resource.Managed)
	if !ok {
		return nil
	}
	ref, err := RefOf(mg)
	if err != nil {
		return nil
	}
	return []string{ref.IndexValue()}
}

// A Dependent is a managed resource that uses a ProviderConfig.
type Dependent struct {
	Kind      string
	Namespace string
	Name      string
	// Deleting is true when the resource has a deletion timestamp.
	Deleting bool
	// Object is the resource as read.
	Object resource.Managed
}

// ListDependents returns every managed resource, of every kind, whose
// providerConfigRef resolves to ref.
func ListDependents(ctx context.Context, r client.Reader, ref Ref) ([]Dependent, error) {
	var out []Dependent
	for _, k := range ManagedKinds() {
		l := k.NewList()
		if err := r.List(ctx, l, client.MatchingFields{DependentsIndex: ref.IndexValue()}); err != nil {
			return nil, errors.Wrapf(err, "%s of kind %s", errListDependents, k.Kind)
		}
		for _, mg := range l.GetItems() {
			out = append(out, Dependent{
				Kind:      k.Kind,
				Namespace: mg.GetNamespace(),
				Name:      mg.GetName(),
				Deleting:  mg.GetDeletionTimestamp() != nil,
				Object:    mg,
			})
		}
	}
	return out, nil
}

// WatchConfigs makes a managed controller reconcile the dependents of a
// ProviderConfig, of the kind it manages, when that ProviderConfig's hold
// moves on or it is gone: a dependent waiting out a backoff then makes its
// bounded pass at once instead of minutes later.
func WatchConfigs(b *builder.Builder, kube client.Reader, kind ManagedKind) *builder.Builder {
	enqueue := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		pc, ok := o.(Object)
		if !ok {
			return nil
		}
		l := kind.NewList()
		if err := kube.List(ctx, l, client.MatchingFields{DependentsIndex: RefOfConfig(pc).IndexValue()}); err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(l.GetItems()))
		for _, mg := range l.GetItems() {
			if mg.GetDeletionTimestamp() != nil {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}})
			}
		}
		return out
	})
	holdMoved := predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(Object)
			n, ok2 := e.ObjectNew.(Object)
			return ok1 && ok2 && StateOf(o) != StateOf(n)
		},
	}
	for _, gk := range Kinds() {
		pc, _ := New(gk)
		b = b.Watches(pc, enqueue, builder.WithPredicates(holdMoved))
	}
	return b
}

// ManagedKindOf returns the ManagedKind of a managed resource's Go type.
func ManagedKindOf(mg resource.Managed) (ManagedKind, bool) {
	for _, k := range ManagedKinds() {
		if reflect.TypeOf(k.New()) == reflect.TypeOf(mg) {
			return k, true
		}
	}
	return ManagedKind{}, false
}
