//! A `Composite`'s `str`, as PyTensor's pretty printer writes it: inputs
//! `i0, i1, ...`, arithmetic infix and fully parenthesised (`((i0 + i1) *
//! i2)`, `(-i0)`), other ops called by their `str` (`exp(i0)`,
//! `Switch(GE(i0, 0), i1, 0.0)`), constants by value, several outputs
//! separated by commas. More than ten inner nodes print as
//! `Composite{...}` (PyTensor's cut-off: a fused 1000-node chain would
//! otherwise print a line of kilobytes).

use super::composite::{Composite, Operand};
use super::{ScalarKind, ScalarOp};
use crate::tensor::format_tensor;

/// Inner graphs with more nodes than this print as `Composite{...}`.
const MAX_SPELLED: usize = 10;

/// The `str` of `c`.
pub(super) fn render(c: &Composite) -> String {
    if c.nodes().len() > MAX_SPELLED {
        return "Composite{...}".into();
    }
    let outs: Vec<String> = c
        .outputs()
        .iter()
        .map(|&o| expr(c, Operand::Node(o)))
        .collect();
    format!("Composite{{{}}}", outs.join(", "))
}

/// The infix symbol of an arithmetic kind.
fn infix(kind: ScalarKind) -> Option<&'static str> {
    use ScalarKind::*;
    Some(match kind {
        Add => "+",
        Sub => "-",
        Mul => "*",
        TrueDiv => "/",
        IntDiv => "//",
        Mod => "%",
        Pow => "**",
        _ => return None,
    })
}

fn expr(c: &Composite, a: Operand) -> String {
    let node = match a {
        Operand::Input(i) => return format!("i{i}"),
        Operand::Const(k) => return format_tensor(&c.consts()[k]),
        Operand::Node(j) => &c.nodes()[j],
    };
    let args: Vec<String> = node.args.iter().map(|&x| expr(c, x)).collect();
    match &node.op {
        ScalarOp::Kind(ScalarKind::Neg) => format!("(-{})", args.join(", ")),
        ScalarOp::Kind(k) if args.len() >= 2 && infix(*k).is_some() => {
            let sym = infix(*k).unwrap_or_default();
            format!("({})", args.join(&format!(" {sym} ")))
        }
        op => format!("{op}({})", args.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::composite::{Composite, Operand};
    use crate::dtype::DType::*;
    use crate::scalar::{ScalarKind as K, ScalarOp};
    use crate::tensor::Tensor;

    #[test]
    fn strings_read_as_pytensors() {
        let mut b = Composite::builder(&[Float64, Float64, Float64]);
        let (x, y, z) = (Operand::Input(0), Operand::Input(1), Operand::Input(2));
        let two = b.constant(Tensor::scalar(2.0f64)).unwrap();
        let m = b.push(K::Mul.into(), &[two, x]).unwrap();
        let s = b.push(K::Add.into(), &[m, y, z]).unwrap();
        let q = b.push(K::Sqr.into(), &[s]).unwrap();
        let comp = b.finish(&[q]).unwrap();
        assert_eq!(comp.name(), "Composite{sqr(((2.0 * i0) + i1 + i2))}");
        let mut b = Composite::builder(&[Float64, Float64, Float64]);
        let n = b.push(K::Neg.into(), &[x]).unwrap();
        let ge = b.push(K::Ge.into(), &[x, y]).unwrap();
        let sw = b.push(K::Switch.into(), &[ge, n, z]).unwrap();
        let p = b.push(K::Pow.into(), &[x, y]).unwrap();
        let c = b.push(ScalarOp::Cast(Float32), &[p]).unwrap();
        let comp = b.finish(&[sw, c]).unwrap();
        assert_eq!(
            comp.name(),
            "Composite{Switch(GE(i0, i1), (-i0), i2), Cast{float32}((i0 ** i1))}"
        );
    }

    #[test]
    fn large_graphs_print_elided() {
        let mut b = Composite::builder(&[Float64]);
        let mut v = Operand::Input(0);
        for _ in 0..11 {
            v = b.push(K::Exp.into(), &[v]).unwrap();
        }
        assert_eq!(b.finish(&[v]).unwrap().name(), "Composite{...}");
    }
}
