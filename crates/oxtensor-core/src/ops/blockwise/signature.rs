//! NumPy's generalized-ufunc signature (`"(m,n),(n)->(m)"`): the core dims
//! of each input and output of a [`super::Blockwise`], by name. Names shared
//! between operands must have equal lengths; every other axis is a batch
//! axis, broadcast across inputs.

use crate::bail;
use crate::error::Result;
use std::fmt;

/// The core dims of each operand, by name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// One list of dim names per input.
    pub inputs: Vec<Vec<String>>,
    /// One list of dim names per output.
    pub outputs: Vec<Vec<String>>,
}

impl Signature {
    /// Parses `"(m,n),(n)->(m)"`; spaces are ignored. A malformed text is a
    /// `ValueError` quoting it.
    pub fn parse(text: &str) -> Result<Self> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let Some((ins, outs)) = compact.split_once("->") else {
            bail!(Value: "not a valid gufunc signature: {text:?} (expected \"(...),(...)->(...)\")");
        };
        Ok(Signature {
            inputs: operands(ins, text)?,
            outputs: operands(outs, text)?,
        })
    }

    /// A signature of distinct names from the operands' ranks, as the
    /// fallback for an op that states none: `(i00,i01),(i10)->(o00)`.
    pub fn from_ndims(inputs: &[usize], outputs: &[usize]) -> Self {
        let names = |prefix: char, ndims: &[usize]| -> Vec<Vec<String>> {
            ndims
                .iter()
                .enumerate()
                .map(|(i, &n)| (0..n).map(|d| format!("{prefix}{i}{d}")).collect())
                .collect()
        };
        Signature {
            inputs: names('i', inputs),
            outputs: names('o', outputs),
        }
    }

    /// How many core dims each input has.
    pub fn input_ndims(&self) -> Vec<usize> {
        self.inputs.iter().map(Vec::len).collect()
    }

    /// How many core dims each output has.
    pub fn output_ndims(&self) -> Vec<usize> {
        self.outputs.iter().map(Vec::len).collect()
    }
}

/// `"(m,n),(n)"` as name lists; `""` and `"()"` as one operand with no dims
/// only where written (an op with no inputs has an empty side).
fn operands(side: &str, text: &str) -> Result<Vec<Vec<String>>> {
    if side.is_empty() {
        return Ok(Vec::new());
    }
    let Some(inner) = side.strip_prefix('(').and_then(|s| s.strip_suffix(')')) else {
        bail!(Value: "not a valid gufunc signature: {text:?} (each operand is \"(dims)\")");
    };
    inner.split("),(").map(|op| dims(op, text)).collect()
}

/// The names inside one pair of parentheses.
fn dims(operand: &str, text: &str) -> Result<Vec<String>> {
    if operand.is_empty() {
        return Ok(Vec::new());
    }
    operand
        .split(',')
        .map(|name| {
            let ok = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !ok {
                bail!(Value: "not a valid gufunc signature: {text:?} (bad dim name {name:?})");
            }
            Ok(name.to_owned())
        })
        .collect()
}

/// One side's operands, NumPy's way: `(m,n),(n)`.
fn fmt_side(side: &[Vec<String>]) -> String {
    let ops: Vec<String> = side.iter().map(|d| format!("({})", d.join(","))).collect();
    ops.join(",")
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}", fmt_side(&self.inputs), fmt_side(&self.outputs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for (text, ins, outs) in [
            ("(m,n),(n)->(m)", vec![2, 1], vec![1]),
            ("( m , m ) -> ( )", vec![2], vec![0]),
            ("(),()->(),()", vec![0, 0], vec![0, 0]),
            ("(a_1,b2)->(a_1,b2)", vec![2], vec![2]),
        ] {
            let s = Signature::parse(text).unwrap();
            assert_eq!((s.input_ndims(), s.output_ndims()), (ins, outs), "{text}");
            let printed = s.to_string();
            assert_eq!(Signature::parse(&printed).unwrap(), s);
        }
        assert_eq!(
            Signature::parse("(m,n),(n)->(m)").unwrap().to_string(),
            "(m,n),(n)->(m)"
        );
    }

    #[test]
    fn rejects_malformed() {
        for text in ["(m,n)", "m,n->m", "(m,,n)->()", "(m-n)->()", "(m),n->(m)"] {
            let err = Signature::parse(text).unwrap_err().to_string();
            assert!(
                err.contains("not a valid gufunc signature"),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn from_ranks() {
        let s = Signature::from_ndims(&[2, 0], &[1]);
        assert_eq!(s.to_string(), "(i00,i01),()->(o00)");
    }
}
