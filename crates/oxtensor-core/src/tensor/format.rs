//! NumPy-style text for tensor values, as `str(ndarray)` prints them; used
//! for constants in `dprint` and variable names.

use super::{Scalar, Tensor};
use crate::dtype::DType;

/// `str(array)` as NumPy prints it for the common cases: 0-d values use the
/// shortest round-trip form (`2.0`, `0.1`, `1e+300`), arrays use NumPy's
/// bracketed form with trailing-dot floats (`[1. 2.]`).
pub fn format_tensor(t: &Tensor) -> String {
    if t.shape().is_empty() {
        return format_scalar(t.get(0));
    }
    let items: Vec<String> = (0..t.len()).map(|i| format_item(t.get(i))).collect();
    let width = items.iter().map(String::len).max().unwrap_or(0);
    let padded: Vec<String> = if t.dtype().is_float() && !all_integral(t) {
        items.iter().map(|s| format!("{s:<width$}")).collect()
    } else {
        items.iter().map(|s| format!("{s:>width$}")).collect()
    };
    nest(t.shape(), &padded)
}

fn nest(shape: &[usize], items: &[String]) -> String {
    if shape.len() <= 1 {
        return format!("[{}]", items.join(" ").trim_end());
    }
    let step = items.len() / shape[0].max(1);
    let rows: Vec<String> = (0..shape[0])
        .map(|r| nest(&shape[1..], &items[r * step..(r + 1) * step]))
        .collect();
    format!("[{}]", rows.join(" "))
}

fn all_integral(t: &Tensor) -> bool {
    (0..t.len()).all(|i| matches!(t.get(i), Scalar::Float(v, _) if v.fract() == 0.0))
}

/// One element inside an array: floats with an integral value print as `1.`.
fn format_item(s: Scalar) -> String {
    match s {
        Scalar::Float(v, _) if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 => {
            format!("{v:.0}.")
        }
        other => format_scalar(other),
    }
}

/// A lone element, as Python's `repr` of the NumPy scalar's value.
pub fn format_scalar(s: Scalar) -> String {
    match s {
        Scalar::Bool(b) => if b { "True" } else { "False" }.to_string(),
        Scalar::Int(v) => v.to_string(),
        Scalar::UInt(v) => v.to_string(),
        Scalar::Float(v, dtype) => format_float(v, dtype),
        Scalar::Complex(re, im, dtype) => {
            let real = dtype.real();
            let sign = if im < 0.0 || (im == 0.0 && im.is_sign_negative()) {
                "-"
            } else {
                "+"
            };
            format!(
                "({}{sign}{}j)",
                format_float(re, real),
                format_float(im.abs(), real)
            )
        }
    }
}

/// Shortest round-trip text of a float in the precision of its dtype, in
/// Python's spelling (`inf`, `nan`, `1e+300`, `2.0`).
fn format_float(v: f64, dtype: DType) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let text = if dtype == DType::Float64 {
        format!("{v:?}")
    } else {
        format!("{:?}", v as f32)
    };
    pythonize_exponent(&text)
}

/// Rust writes `1e300`/`1e-7`; Python writes `1e+300`/`1e-07`, and switches to
/// exponent form only outside `1e-4 <= |v| < 1e16`.
fn pythonize_exponent(text: &str) -> String {
    match text.split_once('e') {
        None => text.to_string(),
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ("-", d),
                None => ("+", exp),
            };
            let mantissa = mantissa.strip_suffix(".0").unwrap_or(mantissa);
            format!("{mantissa}e{sign}{digits:0>2}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_like_numpy() {
        let cases = [
            (Tensor::scalar(2.0f64), "2.0"),
            (Tensor::scalar(0.1f64), "0.1"),
            (Tensor::scalar(1e300f64), "1e+300"),
            (Tensor::scalar(2.0f32), "2.0"),
            (Tensor::scalar(0.1f32), "0.1"),
            (Tensor::scalar(3i8), "3"),
            (Tensor::scalar(true), "True"),
            (Tensor::scalar(f64::NEG_INFINITY), "-inf"),
        ];
        for (t, want) in cases {
            assert_eq!(format_tensor(&t), want);
        }
    }

    #[test]
    fn arrays_like_numpy() {
        let t = Tensor::from_vec(vec![1], vec![2.0f64]).unwrap();
        assert_eq!(format_tensor(&t), "[2.]");
        let t = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap();
        assert_eq!(format_tensor(&t), "[1. 2.]");
        let t = Tensor::from_vec(vec![2, 2], vec![1i64, 2, 3, 4]).unwrap();
        assert_eq!(format_tensor(&t), "[[1 2] [3 4]]");
    }
}
