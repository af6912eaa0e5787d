//! Tests of [`super`]: operand layouts, library loading, routing.

use super::*;

#[test]
fn layouts_cblas_can_read() {
    // C-contiguous 3×4: not transposed, leading dimension 4.
    assert_eq!(layout(3, 4, 4, 1), Some((NO_TRANS, 4)));
    // Its transpose (4×3 with strides 1, 4): transposed, lda 4.
    assert_eq!(layout(4, 3, 1, 4), Some((TRANS, 4)));
    // Every other row of a 6×4 matrix: lda 8.
    assert_eq!(layout(3, 4, 8, 1), Some((NO_TRANS, 8)));
    // A row vector's row stride is unused (`dot` passes 0).
    assert_eq!(layout(1, 5, 0, 1), Some((NO_TRANS, 5)));
    // A column vector (k×1 with stride 1 down the rows).
    assert_eq!(layout(5, 1, 1, 0), Some((NO_TRANS, 1)));
    // Neither stride is 1, or the rows overlap, or a stride is negative.
    assert_eq!(layout(3, 4, 8, 2), None);
    assert_eq!(layout(3, 4, 2, 1), None);
    assert_eq!(layout(3, 4, -4, 1), None);
}

#[test]
fn libraries_without_gemm_are_refused() {
    // SAFETY: test-only: the pointers index arrays this test allocated, within their lengths.
    let open = |path: &str| unsafe { HostBlas::open("x", path.as_ref(), ("", ""), false) };
    let missing = open("/nonexistent/libblas.so").unwrap_err();
    assert!(
        missing.contains("cannot open /nonexistent/libblas.so"),
        "{missing}"
    );
    #[cfg(target_os = "linux")]
    {
        let no_gemm = open("libc.so.6").unwrap_err();
        assert!(
            no_gemm.contains("has neither cblas_sgemm nor cblas_dgemm"),
            "{no_gemm}"
        );
    }
}

#[test]
fn dimensions_that_do_not_fit_are_refused() {
    assert_eq!(fit::<i32>([1, 2, 3, 4, 5]), Some([1, 2, 3, 4, 5]));
    assert_eq!(fit::<i32>([1, 2, 1 << 31, 4, 5]), None);
    assert!(fit::<i64>([1, 2, 1 << 31, 4, 5]).is_some());
}

/// A stand-in CBLAS (row-major, either transposition) checks that the
/// arguments `try_product` passes describe the operands correctly.
unsafe extern "C" fn plain_dgemm(
    _order: c_int,
    ta: c_int,
    tb: c_int,
    m: i64,
    n: i64,
    k: i64,
    alpha: f64,
    a: *const f64,
    lda: i64,
    b: *const f64,
    ldb: i64,
    beta: f64,
    c: *mut f64,
    ldc: i64,
) {
    let at = |i: i64, p: i64| {
        if ta == TRANS {
            p * lda + i
        } else {
            i * lda + p
        }
    };
    let bt = |p: i64, j: i64| {
        if tb == TRANS {
            j * ldb + p
        } else {
            p * ldb + j
        }
    };
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                // SAFETY: test-only: the pointers index arrays this test allocated, within their lengths.
                acc += unsafe { *a.offset(at(i, p) as isize) * *b.offset(bt(p, j) as isize) };
            }
            // SAFETY: test-only: the pointers index arrays this test allocated, within their lengths.
            let c = unsafe { &mut *c.offset((i * ldc + j) as isize) };
            // BLAS never reads C when beta is 0 (it may be garbage).
            *c = if beta == 0.0 {
                alpha * acc
            } else {
                alpha * acc + beta * *c
            };
        }
    }
}

/// A library whose only routine is [`plain_dgemm`].
fn plain() -> HostBlas {
    HostBlas {
        name: "plain".into(),
        sgemm: 0,
        dgemm: plain_dgemm as *const () as usize,
        ilp64: true,
        min_work: 0,
        prefix: String::new(),
        suffix: String::new(),
        kernel: String::new(),
        routes: Routes::ALL,
        lib: None,
    }
}

/// The routing, on libraries of the test's own: an installed one would
/// take the products of every other test running alongside.
#[test]
fn products_go_to_the_library_that_serves_them() {
    let a: Vec<f64> = (0..6).map(|i| i as f64).collect(); // 2×3
    let b: Vec<f64> = (0..12).map(|i| (i as f64) * 0.5).collect(); // 3×4, or 4×3 transposed
    let run = |lib: &HostBlas, brs, bcs| {
        let mut dst = [f64::NAN; 8];
        // 2·3·4 = 24 multiply-adds.
        let routine = lib.product_routine::<f64>(24);
        let calls = host_products();
        // SAFETY: test-only: the pointers index arrays this test allocated, within their lengths.
        let done = unsafe {
            product_with(
                routine,
                dst.as_mut_ptr(),
                (2, 3, 4),
                (a.as_ptr(), 3, 1),
                (b.as_ptr(), brs, bcs),
                (1.0, 0.0),
            )
        };
        assert!(host_products() >= calls + usize::from(done));
        (done, dst)
    };
    let (done, dst) = run(&plain(), 4, 1);
    let (done_t, dst_t) = run(&plain(), 1, 3);
    let (strided, _) = run(&plain(), 8, 2);
    // Products routed to faer stay there.
    let faer = plain().with_routes(Routes::ALL.with(Family::Product, false));
    let (routed, _) = run(&faer, 4, 1);
    // 24 multiply-adds: below a threshold of 25, faer's.
    let (small, _) = run(&plain().with_min_work(25), 4, 1);
    assert_eq!(plain().product_routine::<f32>(24).0, 0, "no sgemm");
    assert!(done && done_t && !strided && !small && !routed);
    // Row 1 of a is [3, 4, 5]; column 2 of b is [1, 3, 5] (plain) or
    // b[6..9] = [3, 3.5, 4] (transposed view).
    assert_eq!(dst[6], 3.0 + 12.0 + 25.0);
    assert_eq!(dst_t[6], 9.0 + 14.0 + 20.0);
}

#[test]
fn the_installed_library_names_the_families_it_serves() {
    // No product is ever large enough for it, so the other tests running
    // meanwhile keep theirs on faer (and it has no LAPACK routines).
    let lib = plain().with_min_work(usize::MAX);
    install(Some(
        lib.with_routes(Routes::ALL.with(Family::Product, false)),
    ));
    let engines = (engine(Family::Product), engine(Family::Qr), installed());
    install(None);
    let plain = Some("plain".to_string());
    assert_eq!(engines, (None, plain.clone(), plain));
    assert_eq!((engine(Family::Qr), installed()), (None, None));
}
