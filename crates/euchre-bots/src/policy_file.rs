//! The exported policy: the average strategy of every trained infostate in
//! a compact, versioned, checksummed file that bots load without the
//! training store.
//!
//! Layout, little-endian:
//! - `EUCHREPOLICY` magic (12 bytes), format version (u32);
//! - metadata length (u32) and metadata (JSON: phase, rules, iterations);
//! - entry count (u64), actions per entry (u8);
//! - entries sorted by key: key (u128), then one u16 per action, the
//!   probability times 65535;
//! - CRC-32 of everything before it (u32).
//!
//! An infostate whose strategy sums are all zero was never averaged (only
//! the traverser reached it); it is left out, and a reader treats it like
//! any key it has never seen: see [`PolicyFile::probabilities`].

use std::path::{Path, PathBuf};

use euchre_game::engine::state::GameState;
use euchre_game::keys::{Decision, InfoKey, decision_with};

use store::{Key, Record, StoreError, Table};
use thiserror::Error;

use crate::meta::{BidsFor, BlueprintSource, PolicyMeta, SearchedBids, SearchedLeads};
use euchre_game::game::GameScore;
use euchre_game::game::context::ScoreContext;
use euchre_game::keys::bidding::{self, in_context};
use euchre_game::keys::lead;

const MAGIC: &[u8; 12] = b"EUCHREPOLICY";
const VERSION: u32 = 1;
const SCALE: f64 = 65535.0;

/// Why a policy file could not be written or read. Every message names
/// the file and says what to do about it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PolicyFileError {
    #[error(
        "cannot read the policy file {}; make one with `trainer export --run-dir runs/NAME`",
        path.display()
    )]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is {kind}, not a policy file; name a file made by `trainer export`", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "{} is not a policy file (it does not start with '{}'); export one with `trainer export`",
        path.display(),
        String::from_utf8_lossy(MAGIC)
    )]
    NotAPolicy { path: PathBuf },
    #[error(
        "{} is policy format version {found}, but this trainer reads version {VERSION}; export it again with this trainer",
        path.display()
    )]
    Version { path: PathBuf, found: u32 },
    #[error("{} is truncated ({len} bytes); export the policy again", path.display())]
    Truncated { path: PathBuf, len: usize },
    #[error(
        "{} is corrupt or truncated (its checksum does not match); export the policy again",
        path.display()
    )]
    Checksum { path: PathBuf },
    #[error("{}: the metadata does not parse", path.display())]
    Metadata {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: {actions} actions per entry is not valid", path.display())]
    ActionsPerEntry { path: PathBuf, actions: usize },
    #[error(
        "{} should be {expected} bytes for {count} entries but is {actual}; export the policy again",
        path.display()
    )]
    Length {
        path: PathBuf,
        expected: usize,
        count: usize,
        actual: usize,
    },
    #[error("{}: entries are not sorted; the file was not written by `trainer export`", path.display())]
    Unsorted { path: PathBuf },
    /// Reading the table or writing the file failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("encoding the policy's metadata")]
    EncodeMetadata(#[source] serde_json::Error),
}

/// A loaded policy.
#[derive(Debug)]
pub struct PolicyFile {
    pub meta: PolicyMeta,
    actions: usize,
    keys: Vec<Key>,
    probabilities: Vec<u16>,
    checksum: u32,
}

/// Whether `key` is a bidding decision (round 1 or 2, the dealer's
/// discard, defending alone) rather than a card play.
pub fn is_bidding_key(key: Key) -> bool {
    InfoKey(key).decision_kind().is_some()
}

/// Bids that an export writes in place of the table's: a run with fixed
/// bids never trains them, so its file takes them from the blueprint
/// (`crate::blueprint::BiddingBlueprint::fixed_bids`).
#[derive(Debug)]
pub struct FixedBids<'a> {
    /// The blueprint they come from, which the metadata must name.
    pub source: &'a BlueprintSource,
    /// Every bidding key's row, scaled as the file stores it, in key
    /// order.
    pub rows: Vec<(Key, Vec<u16>)>,
}

/// Writes the strategy `meta` names (the average, or the current one) in
/// `table` to `path`; returns the entries written. With `fixed_bids`, the
/// bidding decisions those rows hold come from them instead of the table
/// (a run with fixed bids never trains them, so the file plays a whole
/// hand; bids for the game from a prior train only the score contexts,
/// and the plain keys are the prior's).
/// `observe` sees every record on the same pass, so a caller that also
/// wants a summary of the table does not read it twice.
pub fn export(
    table: &dyn Table,
    meta: &PolicyMeta,
    actions: usize,
    fixed_bids: Option<&FixedBids<'_>>,
    path: &Path,
    observe: &mut dyn FnMut(Key, &Record),
) -> Result<u64, PolicyFileError> {
    debug_assert!(
        fixed_bids.is_none_or(|bids| {
            meta.recipe.bidding_from.as_ref() == Some(bids.source)
                || meta.recipe.bids_prior.as_ref() == Some(bids.source)
        }),
        "the metadata must name the blueprint the bids come from"
    );
    let fixed_holds = |key: Key| {
        fixed_bids.is_some_and(|bids| {
            bids.rows
                .binary_search_by_key(&key, |(fixed, _)| *fixed)
                .is_ok()
        })
    };
    let mut rows: Vec<(Key, Row)> = Vec::with_capacity(table.len() as usize);
    table.for_each(&mut |key, record| {
        observe(key, record);
        if fixed_holds(key) {
            return;
        }
        let trained = if meta.strategy.is_current_at(is_bidding_key(key)) {
            record.regrets[..actions].iter().any(|&r| r != 0.0)
        } else {
            record.strategy_sum[..actions].iter().any(|&s| s > 0.0)
        };
        if trained {
            rows.push((key, Row::Trained(*record)));
        }
    })?;
    if let Some(bids) = fixed_bids {
        rows.extend(
            bids.rows
                .iter()
                .map(|(key, scaled)| (*key, Row::Fixed(fixed_row(scaled, actions)))),
        );
    }
    rows.sort_unstable_by_key(|(key, _)| *key);
    let mut bytes = header(meta, rows.len(), actions)?;
    let mut probabilities = vec![0.0f64; actions];
    for (key, row) in &rows {
        bytes.extend_from_slice(&key.to_le_bytes());
        let record = match row {
            Row::Fixed(scaled) => {
                for &p in &scaled[..actions] {
                    bytes.extend_from_slice(&p.to_le_bytes());
                }
                continue;
            }
            Row::Trained(record) => record,
        };
        if meta.strategy.is_current_at(is_bidding_key(*key)) {
            // Padding actions hold zero regret, so they get no weight unless
            // no action has positive regret; a reader then renormalises the
            // uniform row over the legal actions.
            let mut regrets = [0.0; store::MAX_ACTIONS];
            for (wide, &regret) in regrets.iter_mut().zip(&record.regrets[..actions]) {
                *wide = f64::from(regret);
            }
            cfr::regret::regret_matching(&regrets[..actions], &mut probabilities);
        } else {
            cfr::policy::average_strategy(record, &mut probabilities);
        }
        for &p in &probabilities {
            bytes.extend_from_slice(&((p * SCALE).round() as u16).to_le_bytes());
        }
    }
    let crc = crc32(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    store::write_atomically(path, &bytes)?;
    Ok(rows.len() as u64)
}

/// A file's bytes up to its first entry: the magic, the version, the
/// metadata, the count of entries and their width; room for the entries.
fn header(meta: &PolicyMeta, entries: usize, actions: usize) -> Result<Vec<u8>, PolicyFileError> {
    let meta_json = serde_json::to_vec(meta).map_err(PolicyFileError::EncodeMetadata)?;
    let mut bytes = Vec::with_capacity(32 + meta_json.len() + entries * (16 + 2 * actions));
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(meta_json.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&meta_json);
    bytes.extend_from_slice(&(entries as u64).to_le_bytes());
    bytes.push(actions as u8);
    Ok(bytes)
}

/// The index of the most likely action; of equally likely ones, the last.
/// Every reader that plays a policy's argmax uses this one rule, so a run's
/// fixed argmax bids and `policy-argmax:` make the same bid.
pub fn most_likely(probabilities: &[f64]) -> usize {
    (0..probabilities.len())
        .max_by(|&a, &b| probabilities[a].total_cmp(&probabilities[b]))
        .unwrap_or(0)
}

/// One entry of an export: a record of the table, or a row of a fixed
/// blueprint already scaled as the file stores it.
enum Row {
    Trained(Record),
    Fixed([u16; store::MAX_ACTIONS]),
}

/// A blueprint row at this file's width. Columns past the narrower of the
/// two are padding (no legal action sits there), so they are zero.
fn fixed_row(scaled: &[u16], actions: usize) -> [u16; store::MAX_ACTIONS] {
    let mut row = [0u16; store::MAX_ACTIONS];
    let width = scaled.len().min(actions).min(store::MAX_ACTIONS);
    row[..width].copy_from_slice(&scaled[..width]);
    row
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(bytes);
    hasher.finalize()
}

/// A cursor over the file's bytes that reports truncation clearly.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], PolicyFileError> {
        let end = self
            .at
            .checked_add(count)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            return Err(PolicyFileError::Truncated {
                path: self.path.to_path_buf(),
                len: self.bytes.len(),
            });
        };
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], PolicyFileError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// The magic and the format version, refused unless they are this
    /// trainer's.
    fn preamble(&mut self) -> Result<(), PolicyFileError> {
        let magic: [u8; 12] = self.array()?;
        if &magic != MAGIC {
            return Err(PolicyFileError::NotAPolicy {
                path: self.path.to_path_buf(),
            });
        }
        let version = u32::from_le_bytes(self.array()?);
        if version != VERSION {
            return Err(PolicyFileError::Version {
                path: self.path.to_path_buf(),
                found: version,
            });
        }
        Ok(())
    }

    fn meta(&mut self) -> Result<PolicyMeta, PolicyFileError> {
        let meta_len = u32::from_le_bytes(self.array()?) as usize;
        serde_json::from_slice(self.take(meta_len)?).map_err(|source| PolicyFileError::Metadata {
            path: self.path.to_path_buf(),
            source,
        })
    }
}

/// What a policy file says of itself, read without its entries: a run
/// pins a card-play table of up to a gigabyte by this when it resolves its
/// settings, and loads it whole, verifying the checksum, once, when the
/// session opens.
#[derive(Debug)]
pub struct PolicyHeader {
    pub meta: PolicyMeta,
    /// The CRC-32 the file records in its last four bytes, not yet checked
    /// against its body.
    pub checksum: u32,
}

/// The magic, the version and the metadata's length.
const PREAMBLE_LEN: usize = 12 + 4 + 4;

/// Opens an operator-named policy file: a regular file only (a device
/// would be read without end, a FIFO would block).
fn open_policy(path: &Path) -> Result<(std::fs::File, u64), PolicyFileError> {
    store::open_regular(path).map_err(|error| match error {
        store::RegularFileError::NotRegular { kind, .. } => PolicyFileError::NotRegular {
            path: path.to_path_buf(),
            kind,
        },
        store::RegularFileError::Io { source, .. } => PolicyFileError::Unreadable {
            path: path.to_path_buf(),
            source,
        },
        other => PolicyFileError::Unreadable {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    })
}

/// The whole file, read only after its header has said how long it must
/// be and the file is that long: a file that is not a policy (or a damaged
/// header) is refused after at most a few bytes, never read whole.
fn read_checked_length(path: &Path) -> Result<Vec<u8>, PolicyFileError> {
    use std::io::{Read, Seek, SeekFrom};

    let (mut file, file_len) = open_policy(path)?;
    let unreadable = |source| PolicyFileError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let truncated = || PolicyFileError::Truncated {
        path: path.to_path_buf(),
        len: usize::try_from(file_len).unwrap_or(usize::MAX),
    };
    let read_exact = |file: &mut std::fs::File, out: &mut [u8]| {
        file.read_exact(out).map_err(|error| match error.kind() {
            std::io::ErrorKind::UnexpectedEof => truncated(),
            _ => unreadable(error),
        })
    };
    let mut preamble = [0u8; PREAMBLE_LEN];
    let mut got = 0;
    while got < PREAMBLE_LEN {
        match file.read(&mut preamble[got..]).map_err(unreadable)? {
            0 => break,
            read => got += read,
        }
    }
    // A short file that does not even start like a policy is not one.
    let seen = got.min(MAGIC.len());
    if preamble[..seen] != MAGIC[..seen] {
        return Err(PolicyFileError::NotAPolicy {
            path: path.to_path_buf(),
        });
    }
    if got < PREAMBLE_LEN {
        return Err(truncated());
    }
    Reader {
        bytes: &preamble,
        at: 0,
        path,
    }
    .preamble()?;
    let meta_len = u64::from(u32::from_le_bytes(
        preamble[PREAMBLE_LEN - 4..].try_into().expect("4 bytes"),
    ));
    let counts_at = PREAMBLE_LEN as u64 + meta_len;
    if counts_at + 9 + 4 > file_len {
        return Err(truncated());
    }
    file.seek(SeekFrom::Start(counts_at)).map_err(unreadable)?;
    let mut counts = [0u8; 9];
    read_exact(&mut file, &mut counts)?;
    let count = u64::from_le_bytes(counts[..8].try_into().expect("8 bytes"));
    let actions = u64::from(counts[8]);
    let expected = count
        .checked_mul(16 + 2 * actions)
        .and_then(|entries| entries.checked_add(counts_at + 9 + 4));
    if expected != Some(file_len) {
        return Err(PolicyFileError::Length {
            path: path.to_path_buf(),
            expected: expected.map_or(usize::MAX, |bytes| bytes as usize),
            count: count as usize,
            actual: file_len as usize,
        });
    }
    file.seek(SeekFrom::Start(0)).map_err(unreadable)?;
    let mut bytes = Vec::with_capacity(file_len as usize);
    file.take(file_len)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 != file_len {
        return Err(truncated());
    }
    Ok(bytes)
}

impl PolicyFile {
    /// The file's metadata and recorded checksum, read from its first and
    /// last bytes; [`PolicyFile::load`] verifies what this trusts.
    pub fn read_header(path: &Path) -> Result<PolicyHeader, PolicyFileError> {
        use std::io::{Read, Seek, SeekFrom};

        let unreadable = |source| PolicyFileError::Unreadable {
            path: path.to_path_buf(),
            source,
        };
        let (mut file, file_len) = open_policy(path)?;
        let truncated = || PolicyFileError::Truncated {
            path: path.to_path_buf(),
            len: usize::try_from(file_len).unwrap_or(usize::MAX),
        };
        let mut prefix = vec![0; PREAMBLE_LEN];
        file.read_exact(&mut prefix)
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::UnexpectedEof => truncated(),
                _ => unreadable(error),
            })?;
        Reader {
            bytes: &prefix,
            at: 0,
            path,
        }
        .preamble()?;
        let meta_len = u32::from_le_bytes(prefix[PREAMBLE_LEN - 4..].try_into().expect("4 bytes"));
        // The length comes from the file: bound it by the file before
        // allocating, so that a damaged header cannot ask for gigabytes.
        let header_len = PREAMBLE_LEN as u64 + u64::from(meta_len);
        if header_len + 4 > file_len {
            return Err(truncated());
        }
        prefix.resize(PREAMBLE_LEN + meta_len as usize, 0);
        file.read_exact(&mut prefix[PREAMBLE_LEN..])
            .map_err(unreadable)?;
        let mut tail = [0; 4];
        file.seek(SeekFrom::End(-4))
            .and_then(|_| file.read_exact(&mut tail))
            .map_err(unreadable)?;
        let meta = Reader {
            bytes: &prefix,
            at: PREAMBLE_LEN - 4,
            path,
        }
        .meta()?;
        Ok(PolicyHeader {
            meta,
            checksum: u32::from_le_bytes(tail),
        })
    }

    pub fn load(path: &Path) -> Result<PolicyFile, PolicyFileError> {
        let owned = || path.to_path_buf();
        let bytes = read_checked_length(path)?;
        let mut reader = Reader {
            bytes: &bytes,
            at: 0,
            path,
        };
        reader.preamble()?;
        let Some((body, tail)) = bytes.split_last_chunk::<4>() else {
            return Err(PolicyFileError::Truncated {
                path: owned(),
                len: bytes.len(),
            });
        };
        if crc32(body) != u32::from_le_bytes(*tail) {
            return Err(PolicyFileError::Checksum { path: owned() });
        }
        let meta = reader.meta()?;
        let count = u64::from_le_bytes(reader.array()?) as usize;
        let actions = usize::from(reader.array::<1>()?[0]);
        if !(1..=8).contains(&actions) {
            return Err(PolicyFileError::ActionsPerEntry {
                path: owned(),
                actions,
            });
        }
        let expected = count
            .checked_mul(16 + 2 * actions)
            .and_then(|entries| entries.checked_add(reader.at + 4));
        if expected != Some(bytes.len()) {
            return Err(PolicyFileError::Length {
                path: owned(),
                expected: expected.unwrap_or(usize::MAX),
                count,
                actual: bytes.len(),
            });
        }
        let mut keys = Vec::with_capacity(count);
        let mut probabilities = Vec::with_capacity(count * actions);
        for _ in 0..count {
            keys.push(u128::from_le_bytes(reader.array()?));
            for _ in 0..actions {
                probabilities.push(u16::from_le_bytes(reader.array()?));
            }
        }
        if !keys.windows(2).all(|pair| pair[0] < pair[1]) {
            return Err(PolicyFileError::Unsorted { path: owned() });
        }
        Ok(PolicyFile {
            meta,
            actions,
            keys,
            probabilities,
            checksum: u32::from_le_bytes(*tail),
        })
    }

    /// The decision at `state` keyed as this policy was trained: a reader
    /// that keyed card play otherwise would find none of its keys.
    pub fn decision(&self, state: &GameState) -> Option<Decision> {
        decision_with(state, self.meta.recipe.play_abstraction)
    }

    /// [`Self::decision`] in a game standing at `score`: a bid of a
    /// policy whose bids play for the game is keyed by the score's context
    /// ([`BidsFor::Game`]), and by the plain key where the file holds no
    /// bid for that context (a view the training never dealt there) or the
    /// view has no score. An opening lead a search decided
    /// ([`Self::write_with_searched_leads`]) is keyed by the lead's own key
    /// where the file holds it.
    pub fn decision_at(&self, state: &GameState, score: Option<GameScore>) -> Option<Decision> {
        if self.meta.searched_leads.is_some()
            && let Some(lead) = lead::lead_decision(state)
            && self.keys.binary_search(&lead.key.0).is_ok()
        {
            return Some(lead);
        }
        let decision = self.decision(state)?;
        let scored = match (self.meta.recipe.bids_for, score) {
            (BidsFor::Game, Some(score)) => in_context(decision.key, ScoreContext::of(&score)),
            _ => decision.key,
        };
        // A bid for the score's context first, then a searched bid (which
        // plays for points), then the blueprint's.
        let searched = self
            .meta
            .searched_bids
            .is_some()
            .then(|| bidding::searched(decision.key));
        let key = [Some(scored), searched]
            .into_iter()
            .flatten()
            .find(|&key| key != decision.key && self.keys.binary_search(&key.0).is_ok())
            .unwrap_or(decision.key);
        Some(Decision { key, ..decision })
    }

    /// This policy with the bids a search decided (`searched`: each key
    /// with the index of its bid among the key's actions, in key order),
    /// kept at each key's searched tag beside the blueprint's rows, written
    /// to `path`; `info` says what they are. Searched bids already in the
    /// file are replaced; searched leads are kept.
    pub fn write_with_searched(
        &self,
        searched: &[(Key, usize)],
        info: SearchedBids,
        path: &Path,
    ) -> Result<u64, PolicyFileError> {
        let meta = PolicyMeta {
            searched_bids: Some(info),
            ..self.meta.clone()
        };
        let added = searched
            .iter()
            .map(|&(key, slot)| (bidding::searched(InfoKey(key)).0, slot));
        self.write_replacing(&meta, |key| bidding::is_searched(InfoKey(key)), added, path)
    }

    /// This policy with the opening leads a search decided (`leads`: each
    /// lead key, [`euchre_game::keys::lead`], with the index of its card
    /// among the key's cards in canonical order), written to `path`;
    /// `info` says what they are. Leads already in the file are replaced;
    /// searched bids are kept.
    pub fn write_with_searched_leads(
        &self,
        leads: &[(Key, usize)],
        info: SearchedLeads,
        path: &Path,
    ) -> Result<u64, PolicyFileError> {
        let meta = PolicyMeta {
            searched_leads: Some(info),
            ..self.meta.clone()
        };
        self.write_replacing(
            &meta,
            |key| lead::is_lead_key(InfoKey(key)),
            leads.iter().copied(),
            path,
        )
    }

    /// Writes this policy to `path` under `meta`, without the rows
    /// `replaced` picks, with a one-hot row at each added key (the chosen
    /// action's index), in key order, atomically.
    fn write_replacing(
        &self,
        meta: &PolicyMeta,
        replaced: impl Fn(Key) -> bool,
        added: impl Iterator<Item = (Key, usize)>,
        path: &Path,
    ) -> Result<u64, PolicyFileError> {
        let one_hot = |slot: usize| {
            let mut row = vec![0u16; self.actions];
            row[slot.min(self.actions - 1)] = SCALE as u16;
            row
        };
        let mut rows: Vec<(Key, Vec<u16>)> = self
            .entries()
            .filter(|&(key, _)| !replaced(key))
            .map(|(key, row)| (key, row.to_vec()))
            .chain(added.map(|(key, slot)| (key, one_hot(slot))))
            .collect();
        rows.sort_unstable_by_key(|(key, _)| *key);
        let mut bytes = header(meta, rows.len(), self.actions)?;
        for (key, row) in &rows {
            bytes.extend_from_slice(&key.to_le_bytes());
            for p in row {
                bytes.extend_from_slice(&p.to_le_bytes());
            }
        }
        let crc = crc32(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        store::write_atomically(path, &bytes)?;
        Ok(rows.len() as u64)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The file's CRC-32: equal for two files only if they hold the same
    /// policy.
    pub fn checksum(&self) -> u32 {
        self.checksum
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Every entry: its key and its probabilities, scaled to 65535.
    pub fn entries(&self) -> impl Iterator<Item = (Key, &[u16])> {
        self.keys
            .iter()
            .copied()
            .zip(self.probabilities.chunks_exact(self.actions))
    }

    /// Fills `out` (one entry per legal action) with the policy at `key`.
    /// Returns `false`, leaving `out` uniform, for a key the policy has
    /// never averaged: the caller decides what unseen means and counts it.
    pub fn probabilities(&self, key: Key, out: &mut [f64]) -> bool {
        let uniform = 1.0 / out.len() as f64;
        let Ok(index) = self.keys.binary_search(&key) else {
            out.fill(uniform);
            return false;
        };
        let row = &self.probabilities[index * self.actions..(index + 1) * self.actions];
        let width = out.len().min(self.actions);
        let total: f64 = row[..width].iter().map(|&p| f64::from(p)).sum();
        if total <= 0.0 {
            out.fill(uniform);
            return false;
        }
        for (slot, &p) in out.iter_mut().zip(&row[..width]) {
            *slot = f64::from(p) / total;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use euchre_game::engine::rules::Rules;
    use euchre_game::keys::bidding::BiddingDecision;
    use store::MemoryTable;

    use super::*;
    use crate::meta::Leaves;
    use crate::meta::Strategy;
    use crate::phase::Phase;

    fn sample_table() -> MemoryTable {
        let table = MemoryTable::new();
        for key in [7u128, 3, 1 << 100] {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.strategy_sum[0] = 1.0;
                    record.strategy_sum[1] = 3.0;
                })
                .unwrap();
        }
        // Reached only as the traverser: never averaged, so not exported.
        let slot = table.slot(99).unwrap();
        table
            .update(slot, &mut |record| record.regrets[0] = 2.0)
            .unwrap();
        table
    }

    fn meta() -> PolicyMeta {
        PolicyMeta::new(Phase::Bidding, Rules::default(), 12)
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("policy-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_policy_round_trips_and_unseen_keys_are_reported() {
        let path = temp("round-trip.bin");
        let written = export(&sample_table(), &meta(), 7, None, &path, &mut |_, _| {}).unwrap();
        assert_eq!(written, 3);
        let policy = PolicyFile::load(&path).unwrap();
        assert_eq!(policy.meta, meta());
        assert_eq!(policy.len(), 3);
        let mut out = [0.0; 2];
        assert!(policy.probabilities(7, &mut out));
        assert!(
            (out[0] - 0.25).abs() < 1e-4 && (out[1] - 0.75).abs() < 1e-4,
            "{out:?}"
        );
        assert!(!policy.probabilities(99, &mut out));
        assert_eq!(out, [0.5, 0.5]);
    }

    #[test]
    fn the_current_strategy_is_regret_matching_over_the_legal_actions() {
        let table = MemoryTable::new();
        for (key, regrets) in [(1u128, [3.0, -1.0, 1.0]), (2, [-2.0, -1.0, -4.0])] {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.regrets[..3].copy_from_slice(&regrets);
                })
                .unwrap();
        }
        let path = temp("current.bin");
        let current = PolicyMeta {
            strategy: Strategy::Current,
            ..meta()
        };
        // Records never averaged still have a current strategy.
        assert_eq!(
            export(&table, &current, 7, None, &path, &mut |_, _| {}).unwrap(),
            2
        );
        let policy = PolicyFile::load(&path).unwrap();
        assert_eq!(policy.meta.strategy, Strategy::Current);
        let mut out = [0.0; 3];
        assert!(policy.probabilities(1, &mut out));
        for (got, expected) in out.iter().zip([0.75, 0.0, 0.25]) {
            assert!((got - expected).abs() < 1e-4, "{out:?}");
        }
        // No positive regret: uniform over the three legal actions, not
        // over the record's padded width.
        assert!(policy.probabilities(2, &mut out));
        for got in out {
            assert!((got - 1.0 / 3.0).abs() < 1e-4, "{out:?}");
        }
    }

    /// A run that keeps no average in card play exports its bids' average
    /// and its card play's current strategy, each row from the values its
    /// kind keeps.
    #[test]
    fn a_current_card_play_export_reads_bids_from_the_average_and_card_play_from_the_regrets() {
        let bid = (u128::from(BiddingDecision::Round1 as u8) << 120) | 5;
        let card_play = 9u128;
        assert!(is_bidding_key(bid) && !is_bidding_key(card_play));
        let table = MemoryTable::new();
        for (key, regrets, sums) in [
            (bid, [3.0, -1.0], [1.0, 3.0]),
            (card_play, [1.0, 3.0], [0.0, 0.0]),
        ] {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.regrets[..2].copy_from_slice(&regrets);
                    record.strategy_sum[..2].copy_from_slice(&sums);
                })
                .unwrap();
        }
        let path = temp("current-card-play.bin");
        let meta = PolicyMeta {
            strategy: Strategy::CurrentCardPlay,
            ..meta()
        };
        assert_eq!(
            export(&table, &meta, 2, None, &path, &mut |_, _| {}).unwrap(),
            2
        );
        let policy = PolicyFile::load(&path).unwrap();
        assert_eq!(policy.meta.strategy, Strategy::CurrentCardPlay);
        let mut out = [0.0; 2];
        for (key, expected) in [(bid, [0.25, 0.75]), (card_play, [0.25, 0.75])] {
            assert!(policy.probabilities(key, &mut out));
            for (got, expected) in out.iter().zip(expected) {
                assert!((got - expected).abs() < 1e-4, "{key}: {out:?}");
            }
        }
    }

    #[test]
    fn files_written_before_the_strategy_choice_read_as_the_average() {
        let json = r#"{"phase":"bidding","rules":{"stick_the_dealer":true,"lone_defender":false,"dealer_may_discard_upcard":true},"iterations":5}"#;
        let meta: PolicyMeta = serde_json::from_str(json).unwrap();
        assert_eq!(meta.strategy, Strategy::Average);
        assert_eq!(meta.recipe.leaves, Leaves::OpenHand);
    }

    #[test]
    fn damaged_policy_files_are_refused_with_a_reason() {
        let path = temp("damaged.bin");
        export(&sample_table(), &meta(), 7, None, &path, &mut |_, _| {}).unwrap();
        let good = std::fs::read(&path).unwrap();
        let check = |bytes: &[u8], expected: &str| {
            std::fs::write(&path, bytes).unwrap();
            let error = format!("{:#}", PolicyFile::load(&path).unwrap_err());
            assert!(error.contains(expected), "{expected}: {error}");
        };
        // A file cut short is refused by its length before it is read.
        check(&good[..good.len() - 10], "should be");
        check(&good[..8], "truncated");
        let mut flipped = good.clone();
        flipped[40] ^= 1;
        check(&flipped, "checksum");
        let mut version = good.clone();
        version[12] = 9;
        check(&version, "version 9");
        check(b"not a policy at all", "not a policy file");
        let missing = temp("missing.bin");
        let error = PolicyFile::load(&missing).unwrap_err();
        assert!(
            matches!(error, PolicyFileError::Unreadable { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("trainer export"), "{error}");
    }

    #[test]
    fn an_impossible_entry_count_is_refused_not_overflowed() {
        let path = temp("huge-count.bin");
        export(&sample_table(), &meta(), 7, None, &path, &mut |_, _| {}).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let meta_len = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        let count_at = 20 + meta_len;
        bytes[count_at..count_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        // A consistent checksum, so that only the count is wrong.
        let body = bytes.len() - 4;
        let crc = crc32(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let error = PolicyFile::load(&path).unwrap_err();
        assert!(matches!(error, PolicyFileError::Length { .. }), "{error:?}");
        assert!(
            error.to_string().contains("export the policy again"),
            "{error}"
        );
    }

    /// The header says what `load` would find of the metadata and the
    /// checksum, and refuses what is not a policy or stops short of one;
    /// a damaged body is `load`'s to find, and a damaged length allocates
    /// nothing.
    #[test]
    fn the_header_is_the_files_meta_and_recorded_checksum() {
        let path = temp("header.bin");
        export(&sample_table(), &meta(), 7, None, &path, &mut |_, _| {}).unwrap();
        let loaded = PolicyFile::load(&path).unwrap();
        let header = PolicyFile::read_header(&path).unwrap();
        assert_eq!(header.meta, loaded.meta);
        assert_eq!(header.checksum, loaded.checksum());

        let good = std::fs::read(&path).unwrap();
        let header_of = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            PolicyFile::read_header(&path)
        };
        let refused = |bytes: &[u8], expected: &str| {
            let error = format!("{:#}", header_of(bytes).unwrap_err());
            assert!(error.contains(expected), "{expected}: {error}");
        };
        refused(&good[..8], "truncated");
        refused(&good[..30], "truncated");
        refused(b"not a policy at all, but long enough", "not a policy file");
        let mut version = good.clone();
        version[12] = 9;
        refused(&version, "version 9");
        let mut meta_len = good.clone();
        meta_len[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        refused(&meta_len, "truncated");
        let mut meta_text = good.clone();
        meta_text[21] = b'!';
        refused(&meta_text, "metadata does not parse");
        // A flipped entry leaves the header as it was; loading finds it.
        let mut flipped = good.clone();
        let last_entry = good.len() - 6;
        flipped[last_entry] ^= 1;
        assert_eq!(header_of(&flipped).unwrap().checksum, loaded.checksum());
        assert!(matches!(
            PolicyFile::load(&path).unwrap_err(),
            PolicyFileError::Checksum { .. }
        ));
    }
}
