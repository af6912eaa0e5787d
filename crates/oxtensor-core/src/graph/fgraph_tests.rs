use super::*;
use crate::dtype::DType;
use crate::error::Error;
use crate::graph::testing::graph_with;
use crate::graph::InputChange;
use crate::ops::elemwise::Elemwise;
use crate::scalar::ScalarKind;
use crate::types::TensorType;
use std::sync::{Arc, Mutex};

fn op(k: ScalarKind) -> crate::ops::OpRef {
    Arc::new(Elemwise::new(k))
}

/// `y = exp(x); z = y + y`, outputs `[z, y]` (the anatomy's example).
fn exp_graph() -> (FunctionGraph, VarId, VarId, VarId) {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
    let y = g.apply_out(op(ScalarKind::Exp), &[x]).unwrap();
    let z = g.apply_out(op(ScalarKind::Add), &[y, y]).unwrap();
    let fg = FunctionGraph::new(g, vec![x], vec![z, y]).unwrap();
    (fg, x, y, z)
}

#[test]
fn clients_keep_order_duplicates_and_outputs() {
    let (fg, x, y, z) = exp_graph();
    let add = fg.graph().var(z).owner().unwrap();
    assert_eq!(
        fg.clients(y).to_vec(),
        [
            Client::Node(add, 0),
            Client::Node(add, 1),
            Client::Output(1)
        ]
    );
    assert_eq!(fg.clients(z).to_vec(), [Client::Output(0)]);
    assert_eq!(fg.clients(x).len(), 1);
    assert_eq!(fg.apply_nodes().count(), 2);
    fg.check_integrity().unwrap();
}

/// Records callbacks as text, like the anatomy's observed trace.
#[derive(Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Feature for Recorder {
    crate::graph::feature_identity!("Recorder");

    fn on_import(&mut self, fg: &FunctionGraph, node: NodeId, reason: &str) -> Result<()> {
        self.0.lock().unwrap().push(format!(
            "on_import {} {reason}",
            fg.graph().describe_node(node)
        ));
        Ok(())
    }
    fn on_prune(&mut self, fg: &FunctionGraph, node: NodeId, reason: &str) -> Result<()> {
        self.0.lock().unwrap().push(format!(
            "on_prune {} {reason}",
            fg.graph().describe_node(node)
        ));
        Ok(())
    }
    fn on_change_input(&mut self, fg: &FunctionGraph, change: &InputChange) -> Result<()> {
        let InputChange {
            client: c,
            old,
            new,
            reason: r,
        } = *change;
        let g = fg.graph();
        let at = match c {
            Client::Node(n, i) => format!("{} {i}", g.describe_node(n)),
            Client::Output(i) => format!("output[{i}] 0"),
        };
        self.0.lock().unwrap().push(format!(
            "on_change_input {at} {} -> {} {r}",
            g.describe_var(old),
            g.describe_var(new)
        ));
        Ok(())
    }
}

#[test]
fn replace_fires_import_prune_change_in_order() {
    let (mut fg, x, y, _) = exp_graph();
    let log = Recorder::default();
    let trace = log.0.clone();
    fg.attach_feature(Box::new(log)).unwrap();
    let l = fg.graph_mut().apply_out(op(ScalarKind::Log), &[x]).unwrap();
    fg.replace(y, l, "test", false).unwrap();
    let trace = trace.lock().unwrap().clone();
    assert_eq!(
        trace,
        [
            "on_import Log(x) test",
            "on_change_input Add(Log.0, Exp.0) 0 Exp.0 -> Log.0 test",
            "on_change_input Add(Log.0, Log.0) 1 Exp.0 -> Log.0 test",
            "on_prune Exp(x) test",
            "on_change_input output[1] 0 Exp.0 -> Log.0 test",
        ]
    );
    fg.check_integrity().unwrap();
    assert_eq!(fg.outputs()[1], l);
}

#[test]
fn replace_refuses_cycles_and_wrong_types() {
    let (mut fg, x, y, z) = exp_graph();
    let err = fg.replace(y, z, "test", false).unwrap_err();
    assert!(matches!(err, Error::Inconsistency(_)), "{err}");
    assert!(err.to_string().contains("would create a cycle"), "{err}");
    let int_var = fg
        .graph_mut()
        .input(TensorType::scalar(DType::Int32), Some("i"));
    let err = fg.replace(x, int_var, "test", false).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Cannot convert Type Scalar(int32, shape=())"),
        "{err}"
    );
    fg.check_integrity().unwrap();
}

#[test]
fn replace_all_validate_reverts_on_veto() {
    struct Veto;
    impl Feature for Veto {
        crate::graph::feature_identity!("Veto");

        fn on_validate(&mut self, _fg: &FunctionGraph) -> Result<()> {
            Err(Error::Inconsistency("no".into()))
        }
    }
    let (mut fg, x, y, z) = exp_graph();
    fg.attach_feature(Box::new(Veto)).unwrap();
    let l = fg.graph_mut().apply_out(op(ScalarKind::Log), &[x]).unwrap();
    assert!(fg.replace_all_validate(&[(y, l)], "test").is_err());
    assert_eq!(fg.outputs(), &[z, y]);
    assert!(fg.has_node(fg.graph().var(y).owner().unwrap()));
    fg.check_integrity().unwrap();
}

#[test]
fn missing_inputs_are_refused() {
    let (mut g, [x, w]) = graph_with([("x", DType::Float64, 0), ("w", DType::Float64, 0)]);
    let y = g.apply_out(op(ScalarKind::Add), &[x, w]).unwrap();
    let err = FunctionGraph::new(g.clone(), vec![x], vec![y])
        .err()
        .unwrap();
    assert!(matches!(err, Error::MissingInput(_)));
    assert!(
        err.to_string().starts_with("Input 1 (w) of the graph"),
        "{err}"
    );
    let fg = FunctionGraph::from_outputs(g, vec![y]).unwrap();
    assert_eq!(fg.inputs(), &[w, x], "graph_inputs order: last input first");
    assert!(FunctionGraph::new(fg.graph().clone(), vec![y], vec![y]).is_err());
}

#[test]
fn remove_output_reindexes() {
    let (mut fg, _, y, z) = exp_graph();
    fg.remove_output(0, "test").unwrap();
    assert_eq!(fg.outputs(), &[y]);
    assert_eq!(fg.clients(y).iter().last(), Some(&Client::Output(0)));
    assert!(!fg.has_var(z));
    fg.check_integrity().unwrap();
}

#[test]
fn change_node_input_refuses_missing_slots() {
    let (mut fg, x, y, z) = exp_graph();
    let add = fg.graph().var(z).owner().unwrap();
    for (client, text) in [
        (
            Client::Node(add, 2),
            "Add(Exp.0, Exp.0) has no input 2 (it has 2)",
        ),
        (
            Client::Output(2),
            "The FunctionGraph has no output 2 (it has 2)",
        ),
    ] {
        let err = fg
            .change_node_input(client, x, "test", false, true)
            .unwrap_err();
        assert!(matches!(err, Error::Index(_)), "{err}");
        assert_eq!(err.to_string(), text);
    }
    let outside = fg.graph_mut().apply_out(op(ScalarKind::Log), &[x]).unwrap();
    let node = fg.graph().var(outside).owner().unwrap();
    let err = fg
        .change_node_input(Client::Node(node, 0), y, "test", false, true)
        .unwrap_err();
    assert_eq!(err.to_string(), "Log(x) is not in this FunctionGraph");
    fg.check_integrity().unwrap();
}

#[test]
fn refused_import_leaves_the_graph_unchanged() {
    let (mut fg, x, y, _) = exp_graph();
    let w = fg
        .graph_mut()
        .input(TensorType::scalar(DType::Float64), Some("w"));
    let exp = fg.graph().var(y).owner().unwrap();
    let err = fg.replace(x, w, "test", false).unwrap_err();
    assert!(matches!(err, Error::MissingInput(_)), "{err}");
    assert_eq!(fg.graph().node(exp).inputs, vec![x]);
    fg.check_integrity().unwrap();
    // A retry with `import_missing` now does the replacement.
    fg.replace(x, w, "test", true).unwrap();
    assert_eq!(fg.graph().node(exp).inputs, vec![w]);
    assert_eq!(fg.inputs(), &[x, w]);
    fg.check_integrity().unwrap();
}

#[test]
fn revert_after_remove_output() {
    let (mut fg, x, y, z) = exp_graph();
    let chk = fg.checkpoint();
    let l = fg.graph_mut().apply_out(op(ScalarKind::Log), &[x]).unwrap();
    let s = fg.graph_mut().apply_out(op(ScalarKind::Sin), &[x]).unwrap();
    fg.change_node_input(Client::Output(1), l, "test", false, true)
        .unwrap();
    fg.change_node_input(Client::Output(0), s, "test", false, true)
        .unwrap();
    fg.remove_output(0, "test").unwrap();
    assert_eq!(fg.outputs(), &[l]);
    fg.revert(chk).unwrap();
    // Output 1 became output 0, and its change was undone.
    assert_eq!(fg.outputs(), &[y]);
    assert!(!fg.has_var(z) && !fg.has_var(s) && !fg.has_var(l));
    fg.check_integrity().unwrap();
}

#[test]
fn revert_skips_nodes_removed_with_their_output() {
    let (mut fg, x, _, z) = exp_graph();
    let chk = fg.checkpoint();
    let add = fg.graph().var(z).owner().unwrap();
    let l = fg.graph_mut().apply_out(op(ScalarKind::Log), &[x]).unwrap();
    fg.change_node_input(Client::Node(add, 0), l, "test", false, true)
        .unwrap();
    fg.remove_output(0, "test").unwrap();
    assert!(!fg.has_node(add));
    fg.revert(chk).unwrap();
    assert!(!fg.has_node(add));
    fg.check_integrity().unwrap();
}
