//! What DebugMode (and the cheap view-map check) reports, with PyTensor's
//! names: `BadDestroyMap`, `BadViewMap`, `BadThunkOutput`,
//! `BadOptimization` and `InvalidValueError`. Each is a typed error the host maps to the
//! exception class of that name (`oxtensor.compile.debug.debugmode`),
//! keeping the fields a caller inspects (the node, the input or output).

use std::fmt;

/// One of DebugMode's findings.
#[derive(Clone, Debug, PartialEq)]
pub enum DebugModeError {
    /// An op changed an input its `destroy_map` does not declare.
    BadDestroyMap {
        /// The node, printed (`MyOp(x, y)`).
        node: String,
        /// The op, printed.
        op: String,
        /// The input that changed.
        input: usize,
        /// What changed, for the message (how many elements, largest change).
        detail: String,
    },
    /// An output shares memory with an input (or another output) that
    /// neither `view_map` nor `destroy_map` declares.
    BadViewMap {
        /// The node, printed.
        node: String,
        /// The op, printed.
        op: String,
        /// The output that aliases.
        output: usize,
        /// The inputs it aliases without declaring them.
        inputs: Vec<usize>,
        /// The other output it aliases, when it is an output.
        other_output: Option<usize>,
        /// The op's declared maps, printed.
        maps: String,
    },
    /// A result differs from what it was checked against: the same
    /// graph's `FAST_COMPILE` result, or the node's own result when it ran
    /// again with preallocated outputs.
    BadThunkOutput {
        /// The output's position (in the function, or in the node).
        output: usize,
        /// The output variable (or node), printed.
        variable: String,
        /// What computed the expected value (`the FAST_COMPILE result`).
        expected_from: String,
        /// What computed the differing value (`FAST_RUN`, or `perform
        /// with c_contiguous output`).
        computed_by: String,
        /// What differs (shapes, dtypes, or the largest differences).
        detail: String,
    },
    /// A rewrite replaced a variable by one computing something else: both
    /// were evaluated on the call's inputs (the replaced one from the graph
    /// as it was before the rewrite) and differ beyond the dtype's tolerance.
    BadOptimization {
        /// The rewriter that made the replacement (the reason recorded).
        reason: String,
        /// The replaced variable, printed (`Add(x, y)`).
        old: String,
        /// Its replacement, printed.
        new: String,
        /// How the two values differ.
        detail: String,
    },
    /// An op produced a value that is not of its output's type.
    InvalidValue {
        /// The node, printed.
        node: String,
        /// The op, printed.
        op: String,
        /// The output.
        output: usize,
        /// The declared type and what came instead.
        detail: String,
    },
}

impl DebugModeError {
    /// PyTensor's class name for this finding.
    pub fn class_name(&self) -> &'static str {
        match self {
            DebugModeError::BadDestroyMap { .. } => "BadDestroyMap",
            DebugModeError::BadViewMap { .. } => "BadViewMap",
            DebugModeError::BadThunkOutput { .. } => "BadThunkOutput",
            DebugModeError::BadOptimization { .. } => "BadOptimization",
            DebugModeError::InvalidValue { .. } => "InvalidValueError",
        }
    }
}

/// One attribute of a finding, as [`DebugModeError::fields`] gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue<'a> {
    /// Printed text (a node, an op, a variable, a rewriter).
    Text(&'a str),
    /// An input or output position.
    Index(usize),
    /// Positions (the inputs an output aliases).
    Indices(&'a [usize]),
    /// A position that may be absent (the output an output aliases).
    MaybeIndex(Option<usize>),
}

impl DebugModeError {
    /// The attributes PyTensor's exception of this class carries, under
    /// its names (`idx` is a `BadDestroyMap`'s input), for the host to set
    /// on the exception it raises; the `detail`s are in the message only.
    pub fn fields(&self) -> Vec<(&'static str, FieldValue<'_>)> {
        use FieldValue::{Index, Indices, MaybeIndex, Text};
        match self {
            Self::BadDestroyMap {
                node, op, input, ..
            } => vec![
                ("node", Text(node)),
                ("op", Text(op)),
                ("idx", Index(*input)),
            ],
            Self::BadViewMap {
                node,
                op,
                output,
                inputs,
                other_output,
                ..
            } => vec![
                ("node", Text(node)),
                ("op", Text(op)),
                ("output_idx", Index(*output)),
                ("in_alias_idx", Indices(inputs)),
                ("out_alias_idx", MaybeIndex(*other_output)),
            ],
            Self::BadThunkOutput {
                output,
                variable,
                expected_from,
                computed_by,
                ..
            } => vec![
                ("output_idx", Index(*output)),
                ("r", Text(variable)),
                ("thunk1", Text(expected_from)),
                ("thunk2", Text(computed_by)),
            ],
            Self::BadOptimization {
                reason, old, new, ..
            } => vec![
                ("reason", Text(reason)),
                ("old_r", Text(old)),
                ("new_r", Text(new)),
            ],
            Self::InvalidValue {
                node, op, output, ..
            } => vec![
                ("node", Text(node)),
                ("op", Text(op)),
                ("output_idx", Index(*output)),
            ],
        }
    }
}

impl fmt::Display for DebugModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DebugModeError::BadDestroyMap {
                node,
                op,
                input,
                detail,
            } => write!(
                f,
                "BadDestroyMap: {op} modified input {input} of node {node}, which its \
                 destroy_map does not declare ({detail})"
            ),
            DebugModeError::BadViewMap {
                node,
                op,
                output,
                inputs,
                other_output,
                maps,
            } => {
                write!(f, "BadViewMap: output {output} of node {node} ({op}) ")?;
                match other_output {
                    Some(o) => write!(f, "shares memory with output {o}")?,
                    None => write!(f, "shares memory with input(s) {inputs:?}")?,
                }
                write!(f, ", which its maps do not declare ({maps})")
            }
            DebugModeError::BadThunkOutput {
                output,
                variable,
                expected_from,
                computed_by,
                detail,
            } => write!(
                f,
                "BadThunkOutput: output {output} ({variable}) computed by {computed_by} differs \
                 from {expected_from}: {detail}"
            ),
            DebugModeError::BadOptimization {
                reason,
                old,
                new,
                detail,
            } => write!(
                f,
                "BadOptimization: the rewrite {reason} replaced {old} with {new}, which computes \
                 a different value: {detail}"
            ),
            DebugModeError::InvalidValue {
                node,
                op,
                output,
                detail,
            } => write!(
                f,
                "InvalidValueError: output {output} of node {node} ({op}) is not a valid value \
                 of its type: {detail}"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_class_node_and_index() {
        let e = DebugModeError::BadDestroyMap {
            node: "Liar(x)".into(),
            op: "Liar".into(),
            input: 0,
            detail: "3 of 3 elements changed".into(),
        };
        assert_eq!(e.class_name(), "BadDestroyMap");
        let s = e.to_string();
        assert!(s.contains("Liar") && s.contains("input 0"), "{s}");
        let v = DebugModeError::BadViewMap {
            node: "V(x)".into(),
            op: "V".into(),
            output: 1,
            inputs: vec![],
            other_output: Some(0),
            maps: "view_map={}".into(),
        };
        assert!(v.to_string().contains("output 1") && v.to_string().contains("with output 0"));
        assert_eq!(
            e.fields(),
            [
                ("node", FieldValue::Text("Liar(x)")),
                ("op", FieldValue::Text("Liar")),
                ("idx", FieldValue::Index(0)),
            ]
        );
        let aliases = &v.fields()[3..];
        assert_eq!(
            aliases,
            [
                ("in_alias_idx", FieldValue::Indices(&[])),
                ("out_alias_idx", FieldValue::MaybeIndex(Some(0))),
            ]
        );
    }
}
