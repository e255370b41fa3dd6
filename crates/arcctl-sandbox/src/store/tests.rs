//! The store's tests: creates, lists, patches, watches and logs; deletions with finalizers,
//! propagation and preconditions; the pods-per-node index.

use super::*;

fn pod(name: &str, node: &str, labels: Value) -> Value {
    json!({"metadata": {"name": name, "labels": labels}, "spec": {"nodeName": node}})
}

fn all() -> (LabelSelector, FieldSelector) {
    (LabelSelector::default(), FieldSelector::default())
}

#[test]
fn create_fills_server_fields_and_refuses_duplicates() {
    let mut s = Store::new(7);
    let p = s
        .create(PODS, Some("ns"), pod("a", "n1", json!({})))
        .unwrap();
    assert_eq!(p["kind"], "Pod");
    assert_eq!(p["apiVersion"], "v1");
    assert_eq!(p["metadata"]["namespace"], "ns");
    assert_eq!(p["metadata"]["uid"].as_str().unwrap().len(), 36);
    assert_eq!(
        s.create(PODS, Some("ns"), pod("a", "n1", json!({}))),
        Err(StoreError::AlreadyExists)
    );
    // The same name in another namespace is another object.
    assert!(
        s.create(PODS, Some("other"), pod("a", "n1", json!({})))
            .is_ok()
    );
}

#[test]
fn uids_are_reproducible_per_seed() {
    let uid = |seed| {
        let mut s = Store::new(seed);
        s.create(PODS, Some("ns"), pod("a", "n1", json!({})))
            .unwrap()["metadata"]["uid"]
            .clone()
    };
    assert_eq!(uid(1), uid(1));
    assert_ne!(uid(1), uid(2));
}

#[test]
fn generate_name_adds_a_suffix() {
    let mut s = Store::new(1);
    let o = s
        .create(
            RUNNERS,
            Some("ns"),
            json!({"metadata": {"generateName": "rd-"}}),
        )
        .unwrap();
    let name = o["metadata"]["name"].as_str().unwrap();
    assert!(name.starts_with("rd-") && name.len() == 8, "{name}");
}

#[test]
fn delete_honours_uid_preconditions() {
    let mut s = Store::new(1);
    let p = s
        .create(PODS, Some("ns"), pod("a", "n1", json!({})))
        .unwrap();
    let uid = p["metadata"]["uid"].as_str().unwrap().to_owned();
    assert!(matches!(
        s.delete(
            PODS,
            Some("ns"),
            "a",
            &DeleteOptions::with_uid(Some("not-the-uid"))
        ),
        Err(StoreError::Conflict(_))
    ));
    assert!(s.get(PODS, Some("ns"), "a").is_some());
    assert!(
        s.delete(PODS, Some("ns"), "a", &DeleteOptions::with_uid(Some(&uid)))
            .is_ok()
    );
    assert_eq!(
        s.delete(PODS, Some("ns"), "a", &DeleteOptions::default()),
        Err(StoreError::NotFound)
    );
}

#[test]
fn merge_patch_follows_rfc7386_and_keeps_identity() {
    let mut s = Store::new(1);
    s.create(
        PODS,
        Some("ns"),
        json!({"metadata": {"name": "a", "annotations": {"x": "1", "y": "2"}}}),
    )
    .unwrap();
    let rv0 = s.get(PODS, Some("ns"), "a").unwrap()["metadata"]["resourceVersion"].clone();
    let p = s
        .merge_patch(
            PODS,
            Some("ns"),
            "a",
            &json!({"metadata": {"name": "evil", "annotations": {"x": null, "z": "3"}}}),
        )
        .unwrap();
    assert_eq!(p["metadata"]["name"], "a");
    assert_eq!(p["metadata"]["annotations"], json!({"y": "2", "z": "3"}));
    assert_ne!(p["metadata"]["resourceVersion"], rv0);
    for bad in [
        json!({"metadata": 5}),
        json!({"metadata": null}),
        json!([1]),
    ] {
        assert!(matches!(
            s.merge_patch(PODS, Some("ns"), "a", &bad),
            Err(StoreError::Invalid(_))
        ));
    }
    let p = s
        .merge_patch(
            PODS,
            Some("ns"),
            "a",
            &json!({"kind": "Node", "apiVersion": null}),
        )
        .unwrap();
    assert_eq!(
        (p["kind"].as_str(), p["apiVersion"].as_str()),
        (Some("Pod"), Some("v1"))
    );
}

#[test]
fn field_selectors_and_listing() {
    let mut s = Store::new(1);
    for (ns, name, node) in [("a", "p2", "n1"), ("a", "p1", "n2"), ("b", "p0", "n1")] {
        s.create(PODS, Some(ns), pod(name, node, json!({"r": name})))
            .unwrap();
    }
    let (l, f) = all();
    let names = |v: Vec<&Value>| {
        v.iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(s.list(PODS, None, &l, &f)), ["p1", "p2", "p0"]);
    assert_eq!(names(s.list(PODS, Some("a"), &l, &f)), ["p1", "p2"]);
    let f = FieldSelector::parse("spec.nodeName=n1").unwrap();
    assert_eq!(names(s.list(PODS, None, &l, &f)), ["p2", "p0"]);
    let f = FieldSelector::parse("spec.nodeName!=n1").unwrap();
    assert_eq!(names(s.list(PODS, None, &l, &f)), ["p1"]);
    assert!(FieldSelector::parse("spec.containers=x").is_err());
}

#[test]
fn watchers_see_changes() {
    let mut s = Store::new(1);
    let mut rx = s.subscribe();
    s.create(PODS, Some("ns"), pod("a", "n1", json!({})))
        .unwrap();
    s.delete(PODS, Some("ns"), "a", &DeleteOptions::default())
        .unwrap();
    assert_eq!(rx.try_recv().unwrap().event_type, "ADDED");
    assert_eq!(rx.try_recv().unwrap().event_type, "DELETED");
}

#[test]
fn history_replays_events_after_a_resource_version() {
    let mut s = Store::new(1);
    s.create(PODS, Some("ns"), pod("a", "n1", json!({})))
        .unwrap();
    let rv = s.resource_version();
    s.create(PODS, Some("ns"), pod("b", "n1", json!({})))
        .unwrap();
    s.delete(PODS, Some("ns"), "a", &DeleteOptions::default())
        .unwrap();
    let since = s.events_since(rv).unwrap();
    let seen: Vec<_> = since
        .iter()
        .map(|e| (e.event_type, e.object["metadata"]["name"].as_str().unwrap()))
        .collect();
    assert_eq!(seen, [("ADDED", "b"), ("DELETED", "a")]);
    assert!(s.events_since(s.resource_version()).unwrap().is_empty());
    for i in 0..HISTORY {
        s.merge_patch(
            PODS,
            Some("ns"),
            "b",
            &json!({"metadata": {"labels": {"i": i.to_string()}}}),
        )
        .unwrap();
    }
    assert!(s.events_since(rv).is_none(), "too old");
}

#[test]
fn logs_go_with_their_pod() {
    let mut s = Store::new(1);
    s.create(PODS, Some("ns"), pod("a", "n1", json!({})))
        .unwrap();
    s.append_log("ns", "a", "runner", "line".into());
    assert_eq!(s.log("ns", "a", "runner"), ["line"]);
    s.append_log("ns", "a", "runner", "second".into());
    let entries = s.log_entries("ns", "a", "runner", 0);
    assert_eq!(entries.len(), 2);
    assert_eq!(s.log_entries("ns", "a", "runner", 1)[0].line, "second");
    let at: jiff::Timestamp = "2030-01-02T03:04:05.5Z".parse().unwrap();
    s.append_log_at("ns", "a", "runner", at, "later".into());
    assert_eq!(
        s.log_entries("ns", "a", "runner", 2)[0].time,
        "2030-01-02T03:04:05.500000000Z"
    );
    assert!(entries[0].time.ends_with('Z') && entries[0].time.contains('.'));
    s.delete(PODS, Some("ns"), "a", &DeleteOptions::default())
        .unwrap();
    assert!(s.log("ns", "a", "runner").is_empty());
}

mod deletion {
    use super::*;

    const ARC: [&str; 2] = [
        "ephemeralrunner.actions.github.com/finalizer",
        "ephemeralrunner.actions.github.com/runner-registration-finalizer",
    ];

    fn with_finalizers(s: &mut Store, name: &str) -> Value {
        s.create(
            EPHEMERAL_RUNNERS,
            Some("ns"),
            json!({"metadata": {"name": name, "finalizers": ARC}}),
        )
        .unwrap()
    }

    fn marked(d: Deletion) -> (Value, bool) {
        match d {
            Deletion::Marked { object, first } => (object, first),
            Deletion::Removed(o) => panic!("removed, not marked: {o}"),
        }
    }

    #[test]
    fn finalizers_keep_a_deleted_object_until_the_last_is_removed() {
        let mut s = Store::new(1);
        with_finalizers(&mut s, "er");
        let mut rx = s.subscribe();
        let opts = DeleteOptions {
            grace_period_seconds: Some(30),
            ..DeleteOptions::default()
        };
        let (o, first) = marked(
            s.delete(EPHEMERAL_RUNNERS, Some("ns"), "er", &opts)
                .unwrap(),
        );
        assert!(first);
        assert!(is_deleting(&o));
        assert_eq!(o["metadata"]["deletionGracePeriodSeconds"], 30);
        assert_eq!(finalizers(&o), ARC);
        // Still there, and a second delete is not a second start.
        assert!(s.get(EPHEMERAL_RUNNERS, Some("ns"), "er").is_some());
        let (_, again) = marked(
            s.delete(
                EPHEMERAL_RUNNERS,
                Some("ns"),
                "er",
                &DeleteOptions::default(),
            )
            .unwrap(),
        );
        assert!(!again);
        let (o, _) = marked(
            s.remove_finalizer(EPHEMERAL_RUNNERS, Some("ns"), "er", ARC[1])
                .unwrap(),
        );
        assert_eq!(finalizers(&o), [ARC[0]]);
        let gone = s
            .remove_finalizer(EPHEMERAL_RUNNERS, Some("ns"), "er", ARC[0])
            .unwrap();
        assert!(matches!(gone, Deletion::Removed(_)));
        assert!(s.get(EPHEMERAL_RUNNERS, Some("ns"), "er").is_none());
        let seen: Vec<&str> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|e| e.event_type)
            .collect();
        assert_eq!(seen, ["MODIFIED", "MODIFIED", "MODIFIED", "DELETED"]);
    }

    #[test]
    fn a_merge_patch_that_empties_the_finalizers_of_a_deleting_object_removes_it() {
        let mut s = Store::new(1);
        with_finalizers(&mut s, "er");
        // Not deleting: emptying the finalizers just changes the object.
        s.merge_patch(
            EPHEMERAL_RUNNERS,
            Some("ns"),
            "er",
            &json!({"metadata": {"finalizers": null}}),
        )
        .unwrap();
        assert!(s.get(EPHEMERAL_RUNNERS, Some("ns"), "er").is_some());
        s.merge_patch(
            EPHEMERAL_RUNNERS,
            Some("ns"),
            "er",
            &json!({"metadata": {"finalizers": ARC}}),
        )
        .unwrap();
        marked(
            s.delete(
                EPHEMERAL_RUNNERS,
                Some("ns"),
                "er",
                &DeleteOptions::default(),
            )
            .unwrap(),
        );
        // A patch can neither add a finalizer nor clear the deletionTimestamp now.
        let refused = s.merge_patch(
            EPHEMERAL_RUNNERS,
            Some("ns"),
            "er",
            &json!({"metadata": {"finalizers": [ARC[0], "x/y"]}}),
        );
        assert!(
            matches!(&refused, Err(StoreError::Unprocessable(m)) if m.contains("no new finalizers") && m.contains("\"x/y\"")),
            "{refused:?}"
        );
        let o = s
            .merge_patch(
                EPHEMERAL_RUNNERS,
                Some("ns"),
                "er",
                &json!({"metadata": {"deletionTimestamp": null, "finalizers": [ARC[0]]}}),
            )
            .unwrap();
        assert!(is_deleting(&o));
        let mut rx = s.subscribe();
        s.merge_patch(
            EPHEMERAL_RUNNERS,
            Some("ns"),
            "er",
            &json!({"metadata": {"finalizers": []}}),
        )
        .unwrap();
        assert!(s.get(EPHEMERAL_RUNNERS, Some("ns"), "er").is_none());
        assert_eq!(rx.try_recv().unwrap().event_type, "MODIFIED");
        assert_eq!(rx.try_recv().unwrap().event_type, "DELETED");
    }

    #[test]
    fn propagation_policies_add_and_drop_the_gc_finalizers() {
        let mut s = Store::new(1);
        let opts = |p| DeleteOptions {
            propagation: Some(p),
            ..DeleteOptions::default()
        };
        // Foreground and orphan mark even an object without finalizers.
        s.create(PODS, Some("ns"), json!({"metadata": {"name": "fg"}}))
            .unwrap();
        let (o, _) = marked(
            s.delete(PODS, Some("ns"), "fg", &opts(Propagation::Foreground))
                .unwrap(),
        );
        assert_eq!(finalizers(&o), [FOREGROUND_DELETION]);
        // Switching to orphan swaps the GC finalizer; background drops it, and with nothing
        // left the object goes.
        let (o, first) = marked(
            s.delete(PODS, Some("ns"), "fg", &opts(Propagation::Orphan))
                .unwrap(),
        );
        assert_eq!((finalizers(&o), first), (vec![ORPHAN.to_owned()], false));
        assert!(matches!(
            s.delete(PODS, Some("ns"), "fg", &opts(Propagation::Background)),
            Ok(Deletion::Removed(_))
        ));
        // Background on an object with its own finalizers keeps them.
        with_finalizers(&mut s, "er");
        let (o, _) = marked(
            s.delete(
                EPHEMERAL_RUNNERS,
                Some("ns"),
                "er",
                &opts(Propagation::Background),
            )
            .unwrap(),
        );
        assert_eq!(finalizers(&o), ARC);
        // Without finalizers, background (the default) deletes at once.
        s.create(PODS, Some("ns"), json!({"metadata": {"name": "bg"}}))
            .unwrap();
        assert!(matches!(
            s.delete(PODS, Some("ns"), "bg", &DeleteOptions::default()),
            Ok(Deletion::Removed(_))
        ));
    }

    #[test]
    fn preconditions_on_uid_and_resource_version() {
        let mut s = Store::new(1);
        let o = with_finalizers(&mut s, "er");
        let uid = o["metadata"]["uid"].as_str().unwrap().to_owned();
        let rv = o["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_owned();
        let stale_rv = DeleteOptions {
            resource_version: Some("1".into()),
            ..DeleteOptions::default()
        };
        let e = s.delete(EPHEMERAL_RUNNERS, Some("ns"), "er", &stale_rv);
        assert!(
            matches!(&e, Err(StoreError::Conflict(m)) if m == &format!("Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: {rv}")),
            "{e:?}"
        );
        let e = s.delete(
            EPHEMERAL_RUNNERS,
            Some("ns"),
            "er",
            &DeleteOptions::with_uid(Some("other")),
        );
        assert!(matches!(e, Err(StoreError::Conflict(_))));
        assert!(!is_deleting(
            s.get(EPHEMERAL_RUNNERS, Some("ns"), "er").unwrap()
        ));
        let both = DeleteOptions {
            uid: Some(uid),
            resource_version: Some(rv),
            ..DeleteOptions::default()
        };
        marked(
            s.delete(EPHEMERAL_RUNNERS, Some("ns"), "er", &both)
                .unwrap(),
        );
    }

    #[test]
    fn a_patch_naming_another_uid_is_invalid() {
        let mut s = Store::new(1);
        let o = s
            .create(PODS, Some("ns"), json!({"metadata": {"name": "a"}}))
            .unwrap();
        let uid = o["metadata"]["uid"].as_str().unwrap().to_owned();
        let e = s.merge_patch(
            PODS,
            Some("ns"),
            "a",
            &json!({"metadata": {"uid": "old-uid", "annotations": {"k": "v"}}}),
        );
        assert_eq!(
            e,
            Err(StoreError::Unprocessable(
                "metadata.uid: Invalid value: \"old-uid\": field is immutable".into()
            ))
        );
        assert!(s.get(PODS, Some("ns"), "a").unwrap()["metadata"]["annotations"].is_null());
        // The same uid is fine.
        let p = s
            .merge_patch(
                PODS,
                Some("ns"),
                "a",
                &json!({"metadata": {"uid": uid, "annotations": {"k": "v"}}}),
            )
            .unwrap();
        assert_eq!(p["metadata"]["annotations"]["k"], "v");
    }
}

mod index {
    use super::*;

    #[test]
    fn pods_per_node_follow_creates_moves_and_deletes() {
        let mut s = Store::new(1);
        for (name, node) in [("a", "n1"), ("b", "n1"), ("c", "n2")] {
            s.create(
                PODS,
                Some("ns"),
                json!({"metadata": {"name": name}, "spec": {"nodeName": node}}),
            )
            .unwrap();
        }
        assert_eq!((s.pods_on_node("n1"), s.pods_on_node("n2")), (2, 1));
        s.merge_patch(PODS, Some("ns"), "b", &json!({"spec": {"nodeName": "n2"}}))
            .unwrap();
        assert_eq!((s.pods_on_node("n1"), s.pods_on_node("n2")), (1, 2));
        s.delete(PODS, Some("ns"), "c", &DeleteOptions::default())
            .unwrap();
        assert_eq!((s.pods_on_node("n1"), s.pods_on_node("n2")), (1, 1));
        assert_eq!(s.pods_on_node("n3"), 0);
    }

    #[test]
    fn lists_see_only_their_type_and_namespace() {
        let mut s = Store::new(1);
        s.create(PODS, Some("a"), json!({"metadata": {"name": "x"}}))
            .unwrap();
        s.create(PODS, Some("b"), json!({"metadata": {"name": "x"}}))
            .unwrap();
        s.create(NODES, None, json!({"metadata": {"name": "x"}}))
            .unwrap();
        s.create(
            EPHEMERAL_RUNNERS,
            Some("a"),
            json!({"metadata": {"name": "x"}}),
        )
        .unwrap();
        let all = (LabelSelector::default(), FieldSelector::default());
        assert_eq!(s.list(PODS, None, &all.0, &all.1).len(), 2);
        assert_eq!(s.list(PODS, Some("a"), &all.0, &all.1).len(), 1);
        assert_eq!(s.list(PODS, Some("c"), &all.0, &all.1).len(), 0);
        assert_eq!(
            s.list(NODES, Some("a"), &all.0, &all.1).len(),
            1,
            "cluster-scoped"
        );
        assert_eq!(s.list(EPHEMERAL_RUNNERS, None, &all.0, &all.1).len(), 1);
    }
}

#[test]
fn list_pages_walk_on_from_the_last_key_and_count_the_rest_only_without_selectors() {
    let mut s = Store::new(1);
    for (ns, name, app) in [
        ("a", "p1", "x"),
        ("a", "p2", "y"),
        ("a", "p3", "x"),
        ("b", "p1", "x"),
        ("b", "p2", "y"),
    ] {
        s.create(PODS, Some(ns), pod(name, "n1", json!({ "app": app })))
            .unwrap();
    }
    s.create(NODES, None, json!({"metadata": {"name": "n1"}}))
        .unwrap();
    let (labels, fields) = all();
    let names = |page: &[&Value]| -> Vec<String> {
        page.iter()
            .map(|v| {
                format!(
                    "{}/{}",
                    v["metadata"]["namespace"].as_str().unwrap(),
                    v["metadata"]["name"].as_str().unwrap()
                )
            })
            .collect()
    };
    // Every namespace, two at a time: the order of keys, and the count of the rest.
    let (p, rest) = s.list_page(PODS, None, (&labels, &fields), None, 2);
    assert_eq!(
        (names(&p), rest),
        (vec!["a/p1".into(), "a/p2".into()], Rest::Count(3))
    );
    let (p, rest) = s.list_page(PODS, None, (&labels, &fields), Some(("a", "p2")), 2);
    assert_eq!(
        (names(&p), rest),
        (vec!["a/p3".into(), "b/p1".into()], Rest::Count(1))
    );
    let (p, rest) = s.list_page(PODS, None, (&labels, &fields), Some(("b", "p1")), 2);
    assert_eq!((names(&p), rest), (vec!["b/p2".into()], Rest::Nothing));
    // One namespace: the walk stops at its end (no node, no other namespace).
    let (p, rest) = s.list_page(PODS, Some("a"), (&labels, &fields), Some(("a", "p1")), 0);
    assert_eq!(
        (names(&p), rest),
        (vec!["a/p2".into(), "a/p3".into()], Rest::Nothing)
    );
    // With a selector the rest is not counted, only known to be there.
    let x = LabelSelector::parse("app=x").unwrap();
    let (p, rest) = s.list_page(PODS, None, (&x, &fields), None, 2);
    assert_eq!(
        (names(&p), rest),
        (vec!["a/p1".into(), "a/p3".into()], Rest::Unknown)
    );
    let (p, rest) = s.list_page(PODS, None, (&x, &fields), Some(("a", "p3")), 2);
    assert_eq!((names(&p), rest), (vec!["b/p1".into()], Rest::Nothing));
    // The page is full and nothing matching follows: the last page.
    let y = LabelSelector::parse("app=y").unwrap();
    let (p, rest) = s.list_page(PODS, None, (&y, &fields), None, 2);
    assert_eq!(
        (names(&p), rest),
        (vec!["a/p2".into(), "b/p2".into()], Rest::Nothing)
    );
}
