//! Tests of the NumPy index parser: "index items ⇒ node built".

use super::*;
use IndexBound as B;
use IndexItem as I;

/// A graph with `x`, a float64 tensor of static shape `(2, 3, 4)`.
fn x3() -> (Graph, VarId) {
    let mut g = Graph::new();
    let ty = TensorType::new(DType::Float64, [Some(2), Some(3), Some(4)]).unwrap();
    let x = g.input(ty, Some("x"));
    (g, x)
}

fn input(g: &mut Graph, dtype: DType, ndim: usize, name: &str) -> VarId {
    g.input(TensorType::with_ndim(dtype, ndim), Some(name))
}

fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> IndexItem {
    I::Slice {
        start: start.map(B::Int),
        stop: stop.map(B::Int),
        step: step.map(B::Int),
    }
}

fn int(value: i64) -> IndexItem {
    I::Int {
        value,
        dtype: DType::Int64,
    }
}

/// `(node, output type)` of `x[items]`.
fn built(g: &mut Graph, x: VarId, items: &[IndexItem]) -> (String, String) {
    let out = getitem(g, x, items).unwrap();
    let node = g.var(out).owner().unwrap();
    (g.describe_node(node), g.var(out).ty.to_string())
}

#[test]
fn basic_indices_build_a_subtensor_typed_by_constant_slices() {
    let (mut g, x) = x3();
    let cases: Vec<(Vec<IndexItem>, &str, &str)> = vec![
        (
            vec![int(1)],
            "Subtensor{i}(x, 1)",
            "Matrix(float64, shape=(3, 4))",
        ),
        (
            vec![int(1), slice(None, None, Some(2))],
            "Subtensor{i, ::step}(x, 1, 2)",
            "Matrix(float64, shape=(2, 4))",
        ),
        (
            vec![I::Ellipsis, int(-1)],
            "Subtensor{:, :, i}(x, -1)",
            "Matrix(float64, shape=(2, 3))",
        ),
        (
            vec![slice(Some(1), None, None)],
            "Subtensor{start:}(x, 1)",
            "Tensor3(float64, shape=(1, 3, 4))",
        ),
    ];
    for (items, node, ty) in cases {
        assert_eq!(
            built(&mut g, x, &items),
            (node.into(), ty.into()),
            "{items:?}"
        );
    }
}

#[test]
fn newaxis_expands_first_then_indexes_the_rest() {
    let (mut g, x) = x3();
    let out = getitem(&mut g, x, &[I::NewAxis, I::Ellipsis, I::NewAxis]).unwrap();
    assert_eq!(
        g.describe_node(g.var(out).owner().unwrap()),
        "ExpandDims{axes=(0, 4)}(x)"
    );
    let (node, ty) = built(&mut g, x, &[int(0), I::NewAxis]);
    assert_eq!(node, "Subtensor{i, :}(ExpandDims{axis=1}.0, 0)");
    assert_eq!(ty, "Tensor3(float64, shape=(1, 3, 4))");
}

#[test]
fn arrays_and_masks_build_an_advanced_subtensor() {
    let (mut g, x) = x3();
    let v = input(&mut g, DType::Int64, 1, "v");
    let mask = input(&mut g, DType::Bool, 2, "mask");
    let i = input(&mut g, DType::Int32, 0, "i");
    let (node, _) = built(&mut g, x, &[I::FULL, I::Var(v)]);
    assert_eq!(
        node,
        "AdvancedSubtensor{idx_list=(slice(None, None, None), 0)}(x, v)"
    );
    let (node, ty) = built(&mut g, x, &[I::Var(mask), int(2)]);
    assert_eq!(node, "AdvancedSubtensor{idx_list=(0, 1)}(x, mask, 2)");
    assert_eq!(ty, "Vector(float64, shape=(?,))");
    // A 0-d integer variable is a basic index.
    let (node, _) = built(&mut g, x, &[I::Var(i)]);
    assert_eq!(node, "Subtensor{i}(x, i)");
}

#[test]
fn errors_are_pytensors() {
    let (mut g, x) = x3();
    let f = input(&mut g, DType::Float64, 0, "f");
    let fv = input(&mut g, DType::Float64, 1, "fv");
    let v = input(&mut g, DType::Int64, 1, "v");
    let cases: Vec<(Vec<IndexItem>, &str)> = vec![
        (
            vec![int(0); 4],
            "too many indices for tensor: tensor is 3-dimensional, but 4 were indexed",
        ),
        (
            vec![I::Ellipsis, I::Ellipsis],
            "an index can only have a single Ellipsis (`...`)",
        ),
        (vec![int(0), I::PythonBool], PYTHON_BOOLS),
        (vec![I::Var(f)], "basic indices must be integers"),
        (
            vec![I::Slice {
                start: Some(B::NotInteger),
                stop: None,
                step: None,
            }],
            "basic indices must be integers",
        ),
        (
            vec![I::Var(v), I::Var(fv)],
            "index must be integers or a boolean mask",
        ),
    ];
    for (items, msg) in cases {
        let err = getitem(&mut g, x, &items).unwrap_err();
        assert_eq!(err.to_string(), msg, "{items:?}");
    }
}

#[test]
fn inc_subtensor_picks_the_increment_of_the_indexing_op() {
    let (mut g, x) = x3();
    let v = input(&mut g, DType::Int64, 1, "v");
    let y = input(&mut g, DType::Float64, 0, "y");
    let basic = getitem(&mut g, x, &[int(0)]).unwrap();
    let set = IncOptions {
        set_instead_of_inc: true,
        ..Default::default()
    };
    let out = inc_subtensor(&mut g, basic, y, set).unwrap();
    assert_eq!(
        g.describe_node(g.var(out).owner().unwrap()),
        "SetSubtensor{i}(x, y, 0)"
    );
    let adv = getitem(&mut g, x, &[I::Var(v)]).unwrap();
    let out = inc_subtensor(&mut g, adv, y, IncOptions::default()).unwrap();
    assert_eq!(
        g.describe_node(g.var(out).owner().unwrap()),
        "AdvancedIncSubtensor(x, y, v)"
    );
    let dup = IncOptions {
        ignore_duplicates: true,
        ..Default::default()
    };
    // NumPy's `t[v] += y`: the gathered values plus `y`, set back.
    let out = inc_subtensor(&mut g, adv, y, dup).unwrap();
    let node = g.node(g.var(out).owner().unwrap());
    assert_eq!(node.op.to_string(), "AdvancedSetSubtensor");
    let value = g.node(g.var(node.inputs[1]).owner().unwrap());
    assert_eq!(value.op.to_string(), "Add");
    let err = inc_subtensor(&mut g, x, y, set).unwrap_err();
    assert_eq!(
        err.to_string(),
        "x must be the result of a subtensor operation"
    );
    let m = input(&mut g, DType::Float64, 3, "m");
    let err = inc_subtensor(&mut g, basic, m, set).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Trying to increment a 2-dimensional subtensor with a 3-dimensional value."
    );
}

#[test]
fn take_flattens_or_indexes_one_axis() {
    let (mut g, x) = x3();
    let v = input(&mut g, DType::Int64, 1, "v");
    let flat = take(&mut g, x, v, None).unwrap();
    assert_eq!(g.var(flat).ty.to_string(), "Vector(float64, shape=(?,))");
    let out = take(&mut g, x, v, Some(-1)).unwrap();
    assert_eq!(
        g.var(out).ty.to_string(),
        "Tensor3(float64, shape=(2, 3, ?))"
    );
    let err = take(&mut g, x, v, Some(3)).unwrap_err();
    assert_eq!(err.to_string(), "axis 3 is out of bounds for a 3-d tensor");
}
