//! LMDB's data file read as untrusted bytes, before LMDB maps it.
//!
//! LMDB trusts its own file: a damaged page number, node offset or flag
//! sends its cursor walk outside the map or into code for features this
//! store never uses (a flipped `F_DUPDATA` bit reaches `mdb_xcursor_init1`
//! and faults). The per-record checksums cannot help, because LMDB faults
//! while walking to the records. So every page LMDB could reach from the
//! live meta page is read here with positioned reads (which return errors,
//! never signals) and checked against what LMDB assumes of it: page numbers
//! within the file, each page reached once, node offsets inside their page,
//! keys in order and within their parent's bounds, only the node flags this
//! store writes, depths and the per-tree page and entry counts as the tree
//! headers state them. The free-page database is checked too, since a
//! write transaction allocates from it.
//!
//! What passes is a well-formed tree of the shape this store writes; what
//! the records say is then checked by the records' checksum.
//!
//! The layout is LMDB 0.9's (`mdb.c`, `MDB_DEVEL` off), as vendored by
//! `lmdb-master-sys`: 16-byte page headers, 8-byte node headers, two meta
//! pages, the free database (integer keys) and the main database, which
//! here holds only the named databases `records` and `undo`.

use std::cmp::Ordering;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::StoreError;

const MAGIC: u32 = 0xBEEF_C0DE;
const DATA_VERSION: u32 = 1;
const PAGE_HEADER: usize = 16;
const NODE_HEADER: usize = 8;
/// LMDB's cursor stack: no tree is deeper.
const MAX_DEPTH: u16 = 32;
/// LMDB's page sizes: a power of two in this range.
const PAGE_SIZES: std::ops::RangeInclusive<u64> = 512..=0x8000;
/// LMDB's largest key (`MDB_MAXKEYSIZE`).
const MAX_KEY: usize = 511;
/// A map larger than this in the meta page is damage, not a store.
const MAX_MAP_BYTES: u64 = 1 << 46;

const P_BRANCH: u16 = 0x01;
const P_LEAF: u16 = 0x02;
const P_OVERFLOW: u16 = 0x04;
const P_META: u16 = 0x08;
const F_BIGDATA: u16 = 0x01;
const F_SUBDATA: u16 = 0x02;
/// `MDB_INTEGERKEY`: the free database's keys are native integers.
const INTEGER_KEY: u16 = 0x08;
const INVALID_PAGE: u64 = u64::MAX;
const DB_HEADER: usize = 48;

/// The named databases the store keeps, and what each may hold.
pub(super) const RECORDS_DB: &str = "records";
pub(super) const UNDO_DB: &str = "undo";
/// The undo database's checkpoint tag: one byte, so no 16-byte key meets it.
pub(super) const EPOCH_KEY: &[u8] = &[0xEC];
/// The first byte of the undo database's 9-byte keys, each listing the
/// 16-byte keys one batch created (followed by the batch's number): one
/// write per batch, where a marker per new record would double the
/// B-tree work of a growing store.
pub(super) const CREATED_PREFIX: u8 = 0xFB;

/// What a good file's live meta page says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LiveMeta {
    pub(super) page_size: u64,
    pub(super) last_page: u64,
    /// The last committed write transaction: any commit changes it.
    pub(super) txnid: u64,
}

/// A tree's header (`MDB_db`), in a meta page or a named database's node.
#[derive(Clone, Copy, Debug, Default)]
struct TreeHeader {
    flags: u16,
    depth: u16,
    branch_pages: u64,
    leaf_pages: u64,
    overflow_pages: u64,
    entries: u64,
    root: u64,
}

impl TreeHeader {
    fn parse(bytes: &[u8]) -> TreeHeader {
        TreeHeader {
            flags: u16_at(bytes, 4),
            depth: u16_at(bytes, 6),
            branch_pages: u64_at(bytes, 8),
            leaf_pages: u64_at(bytes, 16),
            overflow_pages: u64_at(bytes, 24),
            entries: u64_at(bytes, 32),
            root: u64_at(bytes, 40),
        }
    }
}

/// Which tree a walk is in, which fixes what its leaves may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tree {
    /// Free pages: 8-byte transaction ids, each with a list of page numbers.
    Free,
    /// The named databases.
    Main,
    /// 16-byte keys, each with one record.
    Records,
    /// 16-byte keys with a record or nothing, and the one-byte epoch tag.
    Undo,
}

impl Tree {
    fn name(self) -> &'static str {
        match self {
            Tree::Free => "the free-page database",
            Tree::Main => "the main database",
            Tree::Records => "the 'records' database",
            Tree::Undo => "the 'undo' database",
        }
    }

    fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            // Lengths are checked first, so both are 8 bytes here.
            Tree::Free => u64_at(a, 0).cmp(&u64_at(b, 0)),
            // `mdb_cmp_memn`: bytes first, then the shorter key first.
            _ => a.cmp(b),
        }
    }
}

/// Checks the data file at `path` as LMDB would walk it. `record_bytes` is
/// the size of every record this store writes. Returns the live meta.
pub(super) fn check(path: &Path, record_bytes: u64) -> Result<LiveMeta, StoreError> {
    let file = File::open(path).map_err(StoreError::io(path))?;
    let length = file.metadata().map_err(StoreError::io(path))?.len();
    let mut walk = Walk {
        file,
        path: path.to_path_buf(),
        length,
        page_size: 0,
        last_page: 0,
        seen: Vec::new(),
        record_bytes,
    };
    walk.run()
}

struct Walk {
    file: File,
    path: PathBuf,
    length: u64,
    page_size: u64,
    last_page: u64,
    /// One bit per page: reached once already.
    seen: Vec<u64>,
    record_bytes: u64,
}

/// Counts found while walking one tree.
#[derive(Default)]
struct Counted {
    branch_pages: u64,
    leaf_pages: u64,
    overflow_pages: u64,
    entries: u64,
}

impl Walk {
    fn corrupt(&self, reason: String) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            reason,
        }
    }

    fn run(&mut self) -> Result<LiveMeta, StoreError> {
        let mut head = [0u8; PAGE_HEADER + 144];
        if !self.read_at(0, &mut head)? || u32_at(&head, PAGE_HEADER) != MAGIC {
            return Err(self.corrupt(format!(
                "it is {} bytes and does not start with an LMDB meta page; it was emptied or overwritten",
                self.length
            )));
        }
        let page_size = u64::from(u32_at(&head, PAGE_HEADER + 24));
        if !PAGE_SIZES.contains(&page_size) || !page_size.is_power_of_two() {
            return Err(self.corrupt(format!(
                "its first meta page names a page size of {page_size} bytes"
            )));
        }
        self.page_size = page_size;
        let metas = [self.meta(0)?, self.meta(1)?];
        let live = if metas[1].txnid > metas[0].txnid {
            metas[1]
        } else {
            metas[0]
        };
        self.last_page = live.last_page;
        let needed = (live.last_page + 1).saturating_mul(page_size);
        if self.length < needed {
            return Err(self.corrupt(format!(
                "it is {} bytes, but its own metadata says it uses {needed} (pages of {page_size} up to page {}); it was truncated",
                self.length, live.last_page
            )));
        }
        let pages = usize::try_from(live.last_page + 1)
            .map_err(|_| self.corrupt("its last page number is too large".to_owned()))?;
        self.seen = vec![0; pages.div_ceil(64)];
        if live.free.flags != INTEGER_KEY {
            return Err(self.corrupt(format!(
                "the free-page database's flags are {:#x}, not {INTEGER_KEY:#x}",
                live.free.flags
            )));
        }
        let mut free_pages = Vec::new();
        self.walk_tree(Tree::Free, &live.free, &mut |_, list| {
            free_pages.extend((1..list.len() / 8).map(|i| u64_at(list, 8 * i)));
        })?;
        if live.main.flags != 0 {
            return Err(self.corrupt(format!(
                "the main database's flags are {:#x}, not 0",
                live.main.flags
            )));
        }
        let mut named = Vec::new();
        self.walk_tree(Tree::Main, &live.main, &mut |name, data| {
            named.push((name.to_vec(), TreeHeader::parse(data)));
        })?;
        for (name, header) in named {
            let tree = match name.as_slice() {
                b"records" => Tree::Records,
                b"undo" => Tree::Undo,
                other => {
                    return Err(self.corrupt(format!(
                        "the main database names a database '{}' that this store never makes",
                        String::from_utf8_lossy(other)
                    )));
                }
            };
            if header.flags != 0 {
                return Err(self.corrupt(format!(
                    "{}'s flags are {:#x}, not 0",
                    tree.name(),
                    header.flags
                )));
            }
            self.tree(tree, &header)?;
        }
        // A page both free and in use would be handed out by the next
        // write transaction and overwritten under the tree that holds it.
        for page in free_pages {
            self.claim(page, 1, Tree::Free)?;
        }
        Ok(LiveMeta {
            page_size,
            last_page: live.last_page,
            txnid: live.txnid,
        })
    }

    fn meta(&self, index: u64) -> Result<Meta, StoreError> {
        let mut bytes = [0u8; PAGE_HEADER + 144];
        let at = index * self.page_size;
        if !self.read_at(at, &mut bytes)? {
            return Err(self.corrupt(format!(
                "it is {} bytes, too short for its meta page {index}",
                self.length
            )));
        }
        let body = &bytes[PAGE_HEADER..];
        let bad = |what: &str| {
            self.corrupt(format!(
                "its meta page {index} is damaged ({what}); it was overwritten"
            ))
        };
        if u16_at(&bytes, 10) & P_META == 0 {
            return Err(bad("not marked as a meta page"));
        }
        if u32_at(body, 0) != MAGIC {
            return Err(bad("no LMDB magic"));
        }
        if u32_at(body, 4) != DATA_VERSION {
            return Err(bad("an unknown format version"));
        }
        if u64_at(body, 8) != 0 {
            return Err(bad("a fixed map address"));
        }
        if u64_at(body, 16) > MAX_MAP_BYTES {
            return Err(bad("an impossible map size"));
        }
        if u64::from(u32_at(body, 24)) != self.page_size {
            return Err(bad("a page size unlike the other meta page's"));
        }
        Ok(Meta {
            free: TreeHeader::parse(&body[24..24 + DB_HEADER]),
            main: TreeHeader::parse(&body[24 + DB_HEADER..24 + 2 * DB_HEADER]),
            last_page: u64_at(body, 24 + 2 * DB_HEADER),
            txnid: u64_at(body, 32 + 2 * DB_HEADER),
        })
    }

    /// Reads `out.len()` bytes at `at`; false when the file ends first.
    fn read_at(&self, at: u64, out: &mut [u8]) -> Result<bool, StoreError> {
        match self.file.read_exact_at(out, at) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
            Err(source) => Err(StoreError::io(&self.path)(source)),
        }
    }

    /// Marks `count` pages from `page` as reached, refusing a page reached
    /// twice (a cycle, or two trees sharing a page) or past the last page.
    fn claim(&mut self, page: u64, count: u64, tree: Tree) -> Result<(), StoreError> {
        let end = page.saturating_add(count);
        if page < 2 || count == 0 || end > self.last_page + 1 {
            return Err(self.corrupt(format!(
                "{} points at page {page} (and {count} after it), outside pages 2 to {}",
                tree.name(),
                self.last_page
            )));
        }
        for page in page..end {
            let (word, bit) = ((page / 64) as usize, page % 64);
            if self.seen[word] & (1 << bit) != 0 {
                return Err(self.corrupt(format!("{} reaches page {page} twice", tree.name())));
            }
            self.seen[word] |= 1 << bit;
        }
        Ok(())
    }

    /// Reads a page of a tree, checking its header's page number.
    fn page(&mut self, number: u64, tree: Tree) -> Result<Vec<u8>, StoreError> {
        self.claim(number, 1, tree)?;
        let mut bytes = vec![0u8; self.page_size as usize];
        if !self.read_at(number * self.page_size, &mut bytes)? {
            return Err(self.corrupt(format!("page {number} lies past the file's end")));
        }
        if u64_at(&bytes, 0) != number {
            return Err(self.corrupt(format!(
                "page {number} of {} says it is page {}",
                tree.name(),
                u64_at(&bytes, 0)
            )));
        }
        Ok(bytes)
    }

    /// Walks a tree and checks its header's counts, handing nothing out.
    fn tree(&mut self, tree: Tree, header: &TreeHeader) -> Result<(), StoreError> {
        self.walk_tree(tree, header, &mut |_, _| {})
    }

    /// Walks a tree, handing each leaf's key and data to `leaf` (which only
    /// the main database uses), and checks the header's counts.
    fn walk_tree(
        &mut self,
        tree: Tree,
        header: &TreeHeader,
        leaf: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<(), StoreError> {
        let mut counted = Counted::default();
        if header.root == INVALID_PAGE {
            if header.depth != 0 || header.entries != 0 {
                return Err(self.corrupt(format!(
                    "{} has no root page but claims {} entries at depth {}",
                    tree.name(),
                    header.entries,
                    header.depth
                )));
            }
        } else {
            if header.depth == 0 || header.depth > MAX_DEPTH {
                return Err(self.corrupt(format!(
                    "{} claims a depth of {}",
                    tree.name(),
                    header.depth
                )));
            }
            self.node_page(
                tree,
                header.root,
                header.depth,
                (None, None),
                &mut counted,
                leaf,
            )?;
        }
        let found = (
            counted.branch_pages,
            counted.leaf_pages,
            counted.overflow_pages,
            counted.entries,
        );
        let stated = (
            header.branch_pages,
            header.leaf_pages,
            header.overflow_pages,
            header.entries,
        );
        if found != stated {
            return Err(self.corrupt(format!(
                "{} holds {} branch, {} leaf and {} overflow pages with {} entries, but its header says {}, {}, {} and {}",
                tree.name(),
                found.0,
                found.1,
                found.2,
                found.3,
                stated.0,
                stated.1,
                stated.2,
                stated.3
            )));
        }
        Ok(())
    }

    /// Checks one branch or leaf page at `depth` (1 for leaves), whose keys
    /// must lie in `bounds` (low inclusive, high exclusive).
    fn node_page(
        &mut self,
        tree: Tree,
        number: u64,
        depth: u16,
        bounds: (Option<&[u8]>, Option<&[u8]>),
        counted: &mut Counted,
        leaf: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<(), StoreError> {
        let page = self.page(number, tree)?;
        let flags = u16_at(&page, 10);
        let wanted = if depth == 1 { P_LEAF } else { P_BRANCH };
        if flags != wanted {
            return Err(self.corrupt(format!(
                "page {number} of {} has flags {flags:#x} where a {} page belongs",
                tree.name(),
                if depth == 1 { "leaf" } else { "branch" }
            )));
        }
        let size = page.len();
        let lower = usize::from(u16_at(&page, 12));
        let upper = usize::from(u16_at(&page, 14));
        if lower < PAGE_HEADER + 2 || lower % 2 != 0 || lower > upper || upper > size {
            return Err(self.corrupt(format!(
                "page {number} of {} has free-space bounds {lower}..{upper}",
                tree.name()
            )));
        }
        let keys = (lower - PAGE_HEADER) / 2;
        let bad = |what: String| format!("page {number} of {}: {what}", tree.name());
        // Every node: where it starts, its key, and (branch) its child or
        // (leaf) its flags and data.
        let mut nodes = Vec::with_capacity(keys);
        for index in 0..keys {
            let at = usize::from(u16_at(&page, PAGE_HEADER + 2 * index));
            if at < upper || at + NODE_HEADER > size {
                return Err(self.corrupt(bad(format!("node {index} starts at byte {at}"))));
            }
            let low = usize::from(u16_at(&page, at));
            let high = usize::from(u16_at(&page, at + 2));
            let node_flags = u16_at(&page, at + 4);
            let key_size = usize::from(u16_at(&page, at + 6));
            let key_end = at + NODE_HEADER + key_size;
            if key_size > MAX_KEY || key_end > size {
                return Err(self.corrupt(bad(format!("node {index} has a {key_size}-byte key"))));
            }
            nodes.push((at, low, high, node_flags, key_end));
        }
        // Keys in order within the page and within the parent's bounds; a
        // branch page's first key is empty and stands for its low bound.
        let first_key = if depth == 1 { 0 } else { 1 };
        for index in first_key..keys {
            let (at, .., key_end) = nodes[index];
            let key = &page[at + NODE_HEADER..key_end];
            self.check_key(tree, key)
                .map_err(|what| self.corrupt(bad(what)))?;
            let above_low = bounds
                .0
                .is_none_or(|low| tree.compare(key, low) != Ordering::Less);
            let below_high = bounds
                .1
                .is_none_or(|high| tree.compare(key, high) == Ordering::Less);
            let after_previous = index == first_key || {
                let (previous_at, .., previous_end) = nodes[index - 1];
                tree.compare(&page[previous_at + NODE_HEADER..previous_end], key) == Ordering::Less
            };
            if !(above_low && below_high && after_previous) {
                return Err(self.corrupt(bad(format!("node {index}'s key is out of order"))));
            }
        }
        if depth == 1 {
            counted.leaf_pages += 1;
            for (index, &(at, low, high, node_flags, key_end)) in nodes.iter().enumerate() {
                let data_size = low | (high << 16);
                let key = &page[at + NODE_HEADER..key_end];
                let data = if node_flags == F_BIGDATA {
                    if key_end + 8 > size {
                        return Err(
                            self.corrupt(bad(format!("node {index}'s data runs off the page")))
                        );
                    }
                    self.overflow(tree, u64_at(&page, key_end), data_size, counted)?
                } else if node_flags == 0 || (node_flags == F_SUBDATA && tree == Tree::Main) {
                    if key_end + data_size > size {
                        return Err(
                            self.corrupt(bad(format!("node {index}'s data runs off the page")))
                        );
                    }
                    page[key_end..key_end + data_size].to_vec()
                } else {
                    return Err(self.corrupt(bad(format!(
                        "node {index} has flags {node_flags:#x}, which this store never writes"
                    ))));
                };
                self.check_data(tree, key, node_flags, &data)
                    .map_err(|what| self.corrupt(bad(format!("node {index}: {what}"))))?;
                counted.entries += 1;
                leaf(key, &data);
            }
        } else {
            counted.branch_pages += 1;
            if keys < 2 {
                return Err(self.corrupt(bad(format!("a branch page with {keys} keys"))));
            }
            let key_of = |i: usize| {
                let (at, .., end) = nodes[i];
                &page[at + NODE_HEADER..end]
            };
            for (index, &(_, low, high, node_flags, _)) in nodes.iter().enumerate() {
                let child = low as u64 | (high as u64) << 16 | u64::from(node_flags) << 32;
                let low_bound = if index == 0 {
                    bounds.0
                } else {
                    Some(key_of(index))
                };
                let high_bound = if index + 1 < keys {
                    Some(key_of(index + 1))
                } else {
                    bounds.1
                };
                self.node_page(
                    tree,
                    child,
                    depth - 1,
                    (low_bound, high_bound),
                    counted,
                    leaf,
                )?;
            }
        }
        Ok(())
    }

    /// Reads the data of a node whose data lives on overflow pages.
    fn overflow(
        &mut self,
        tree: Tree,
        first: u64,
        data_size: usize,
        counted: &mut Counted,
    ) -> Result<Vec<u8>, StoreError> {
        let pages = (PAGE_HEADER - 1 + data_size) as u64 / self.page_size + 1;
        let mut header = [0u8; PAGE_HEADER];
        if first < 2
            || first > self.last_page
            || !self.read_at(first * self.page_size, &mut header)?
        {
            return Err(self.corrupt(format!(
                "{} points at overflow page {first}, outside the file",
                tree.name()
            )));
        }
        if u64_at(&header, 0) != first
            || u16_at(&header, 10) != P_OVERFLOW
            || u64::from(u32_at(&header, 12)) != pages
        {
            return Err(self.corrupt(format!(
                "overflow page {first} of {} is not the {pages}-page run its node names",
                tree.name()
            )));
        }
        self.claim(first, pages, tree)?;
        counted.overflow_pages += pages;
        let mut data = vec![0u8; data_size];
        if !self.read_at(first * self.page_size + PAGE_HEADER as u64, &mut data)? {
            return Err(self.corrupt(format!("overflow page {first} lies past the file's end")));
        }
        Ok(data)
    }

    fn check_key(&self, tree: Tree, key: &[u8]) -> Result<(), String> {
        let fits = match tree {
            Tree::Free => key.len() == 8,
            Tree::Main => key == RECORDS_DB.as_bytes() || key == UNDO_DB.as_bytes(),
            Tree::Records => key.len() == 16,
            Tree::Undo => {
                key.len() == 16 || key == EPOCH_KEY || (key.len() == 9 && key[0] == CREATED_PREFIX)
            }
        };
        if fits {
            Ok(())
        } else {
            Err(format!(
                "a {}-byte key this database never holds",
                key.len()
            ))
        }
    }

    fn check_data(&self, tree: Tree, key: &[u8], flags: u16, data: &[u8]) -> Result<(), String> {
        let size = data.len() as u64;
        let fits = match tree {
            Tree::Free => {
                // A list of page numbers, its length first.
                size >= 8
                    && size.is_multiple_of(8)
                    && u64_at(data, 0) == size / 8 - 1
                    && (1..data.len() / 8).all(|i| {
                        let page = u64_at(data, 8 * i);
                        (2..=self.last_page).contains(&page)
                    })
            }
            Tree::Main => flags == F_SUBDATA && data.len() == DB_HEADER,
            Tree::Records => size == self.record_bytes,
            Tree::Undo if key == EPOCH_KEY => size == 8,
            // A batch's list of the 16-byte keys it created.
            Tree::Undo if key.len() == 9 => size > 0 && size.is_multiple_of(16),
            Tree::Undo => size == 0 || size == self.record_bytes,
        };
        if fits {
            Ok(())
        } else {
            Err(format!(
                "{size} bytes of data that do not fit {}",
                tree.name()
            ))
        }
    }
}

#[derive(Clone, Copy)]
struct Meta {
    free: TreeHeader,
    main: TreeHeader,
    last_page: u64,
    txnid: u64,
}

/// Little-endian fields at `at`; callers have checked `bytes` is long enough.
fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}
