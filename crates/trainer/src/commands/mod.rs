pub(crate) mod bench_cfr;
pub(crate) mod bench_dd;
pub(crate) mod bench_game;
pub(crate) mod bench_store;
pub(crate) mod bench_train;
pub(crate) mod enumerate;
pub(crate) mod replay;
pub(crate) mod train;
