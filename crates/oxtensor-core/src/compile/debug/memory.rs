//! Which memory a value occupies, and whether a node's outputs share it
//! with inputs or other outputs that its `view_map` / `destroy_map` do not
//! declare. Ranges of addresses, not buffer identity: a Python op's output
//! is a new buffer handle over the same NumPy memory, and only the
//! addresses tell. Like NumPy's `may_share_memory`, overlapping ranges count
//! as shared even when strides interleave without touching the same bytes.

use super::errors::DebugModeError;
use crate::ops::IoMap;
use crate::tensor::{layout, Tensor};
use crate::value::Value;

/// The first and one-past-last address `t`'s elements occupy; `None` for
/// an empty tensor, which occupies nothing.
pub fn address_range(t: &Tensor) -> Option<(usize, usize)> {
    if t.is_empty() {
        return None;
    }
    let (lo, hi) = layout::extent(t.dtype().itemsize(), t.shape(), t.strides(), t.offset())?;
    let base = t.buffer().as_ptr() as usize;
    Some((base.checked_add_signed(lo)?, base.checked_add_signed(hi)?))
}

/// Whether two values may share memory (host values never do, as far as
/// the core can tell).
pub fn may_share_memory(a: &Value, b: &Value) -> bool {
    let (Value::Tensor(a), Value::Tensor(b)) = (a, b) else {
        return false;
    };
    match (address_range(a), address_range(b)) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => false,
    }
}

/// The inputs output `o` is declared to alias (view or destroy).
fn declared(o: usize, view_map: &IoMap, destroy_map: &IoMap) -> Vec<usize> {
    view_map
        .iter()
        .chain(destroy_map)
        .filter(|(out, _)| *out == o)
        .flat_map(|(_, ins)| ins.iter().copied())
        .collect()
}

/// What a node is and declares, for the checks and their messages.
pub struct NodeMaps<'a> {
    /// The node, printed.
    pub node: &'a str,
    /// The op, printed.
    pub op: &'a str,
    /// Its `view_map`.
    pub view_map: &'a IoMap,
    /// Its `destroy_map`.
    pub destroy_map: &'a IoMap,
}

impl NodeMaps<'_> {
    fn bad_view(&self, output: usize, inputs: Vec<usize>, other: Option<usize>) -> DebugModeError {
        DebugModeError::BadViewMap {
            node: self.node.to_owned(),
            op: self.op.to_owned(),
            output,
            inputs,
            other_output: other,
            maps: format!(
                "view_map={}, destroy_map={}",
                fmt_map(self.view_map),
                fmt_map(self.destroy_map)
            ),
        }
    }

    /// Checks that each output shares memory only with the inputs it
    /// declares, and with another output only when both declare the same
    /// input. An undeclared input is let be when it itself overlaps a
    /// declared one: the inputs alias each other (`x` and `x.T` both
    /// given), and which of them the output views cannot be told apart.
    pub fn check_aliasing(
        &self,
        inputs: &[&Value],
        outputs: &[Option<Value>],
    ) -> Result<(), DebugModeError> {
        for (o, out) in outputs.iter().enumerate() {
            let Some(out) = out else { continue };
            let ok = declared(o, self.view_map, self.destroy_map);
            let bad: Vec<usize> = (0..inputs.len())
                .filter(|&i| !ok.contains(&i) && may_share_memory(out, inputs[i]))
                .filter(|&i| {
                    !ok.iter().any(|&d| {
                        inputs
                            .get(d)
                            .is_some_and(|v| may_share_memory(v, inputs[i]))
                    })
                })
                .collect();
            if !bad.is_empty() {
                return Err(self.bad_view(o, bad, None));
            }
            for (p, other) in outputs.iter().enumerate().skip(o + 1) {
                let Some(other) = other else { continue };
                let shared_input = declared(p, self.view_map, self.destroy_map)
                    .iter()
                    .any(|i| ok.contains(i));
                if !shared_input && may_share_memory(out, other) {
                    return Err(self.bad_view(p, Vec::new(), Some(o)));
                }
            }
        }
        Ok(())
    }
}

/// A map as PyTensor prints it: `{0: [0]}`.
pub fn fmt_map(map: &IoMap) -> String {
    let items: Vec<String> = map.iter().map(|(o, ins)| format!("{o}: {ins:?}")).collect();
    format!("{{{}}}", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(n: usize) -> Tensor {
        Tensor::from_vec(vec![n], vec![1.0f64; n]).unwrap()
    }

    fn maps<'a>(view: &'a IoMap, destroy: &'a IoMap) -> NodeMaps<'a> {
        NodeMaps {
            node: "Op(x, y)",
            op: "Op",
            view_map: view,
            destroy_map: destroy,
        }
    }

    #[test]
    fn ranges_overlap_for_views_not_for_copies_or_empties() {
        let x = vector(4);
        let tail = x.view(&[2], &[8], 16).unwrap();
        let head = x.view(&[2], &[8], 0).unwrap();
        let empty = x.view(&[0], &[8], 0).unwrap();
        let (xv, tv, hv) = (Value::from(x.clone()), Value::from(tail), Value::from(head));
        assert!(may_share_memory(&xv, &tv));
        assert!(!may_share_memory(&tv, &hv), "disjoint halves");
        assert!(!may_share_memory(&xv, &Value::from(empty)));
        assert!(!may_share_memory(&xv, &Value::from(vector(4))));
        let reversed = x.view(&[4], &[-8], 24).unwrap();
        assert_eq!(address_range(&reversed), address_range(&x));
    }

    #[test]
    fn undeclared_views_are_named_and_declared_ones_pass() {
        let (x, y) = (vector(3), vector(3));
        let (xv, yv) = (Value::from(x.clone()), Value::from(y));
        let ins = [&xv, &yv];
        let outs = [Some(Value::from(x.view(&[2], &[8], 8).unwrap()))];
        let none: IoMap = Vec::new();
        let err = maps(&none, &none).check_aliasing(&ins, &outs).unwrap_err();
        assert!(
            matches!(&err, DebugModeError::BadViewMap { output: 0, inputs, .. } if inputs == &[0])
        );
        let view: IoMap = vec![(0, vec![0])];
        assert!(maps(&view, &none).check_aliasing(&ins, &outs).is_ok());
        assert!(
            maps(&none, &view).check_aliasing(&ins, &outs).is_ok(),
            "destroyed"
        );
        let wrong: IoMap = vec![(0, vec![1])];
        assert!(maps(&wrong, &none).check_aliasing(&ins, &outs).is_err());
    }

    #[test]
    fn aliasing_inputs_and_outputs() {
        let x = vector(3);
        let xv = Value::from(x.clone());
        let xt = Value::from(x.view(&[3], &[8], 0).unwrap());
        let view: IoMap = vec![(0, vec![0])];
        let none: IoMap = Vec::new();
        // The output views input 0, which input 1 aliases too: not an error.
        let outs = [Some(xv.clone())];
        assert!(maps(&view, &none)
            .check_aliasing(&[&xv, &xt], &outs)
            .is_ok());
        // Two outputs over one fresh buffer, neither declared.
        let fresh = Value::from(vector(2));
        let outs = [Some(fresh.clone()), Some(fresh)];
        let err = maps(&none, &none)
            .check_aliasing(&[&xv], &outs)
            .unwrap_err();
        assert!(matches!(
            err,
            DebugModeError::BadViewMap {
                output: 1,
                other_output: Some(0),
                ..
            }
        ));
        // Two outputs both viewing input 0.
        let both: IoMap = vec![(0, vec![0]), (1, vec![0])];
        let outs = [Some(xv.clone()), Some(xv.clone())];
        assert!(maps(&both, &none).check_aliasing(&[&xv], &outs).is_ok());
        assert_eq!(fmt_map(&both), "{0: [0], 1: [0]}");
    }
}
