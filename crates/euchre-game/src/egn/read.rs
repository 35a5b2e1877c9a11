//! An EGN file into a [`Game`]: the JSON checked, the ruleset mapped to the
//! engine's rule options, and each deal's text read into engine types. The
//! deals are not replayed here ([`super::reconstruct()`] does that), so a file
//! whose third deal holds a renege still yields its other deals.

use serde_json::{Map, Value};

use crate::egn::file::{EgnAnnotations, EgnDeal, EgnFile, EgnPhase, FILE_TYPE};
use crate::egn::{
    Annotated, Annotation, DealError, DealProblem, EgnError, Game, Label, RecordedDeal,
};
use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet, Rank, Suit};
use crate::engine::rules::{LonerLead, Rules};
use crate::engine::seat::Seat;

/// The deals an EGN file may hold (EGN's own limit).
pub const MAX_DEALS: usize = 100;
/// Alternative lines kept per deal; each is shown beside its decision.
pub const MAX_ALTERNATIVE_LINES: usize = 64;
/// Annotated decisions per phase of a deal (a deal has at most 8 calls and
/// 20 cards; the rest is room for annotators' own keys).
pub const MAX_ANNOTATED: usize = 64;
/// Comments on one decision.
pub const MAX_COMMENTS: usize = 16;

/// Reads the text of an `.egn` file. A leading byte-order mark (which
/// editors on Windows add) is skipped; a key written twice in one object
/// is refused rather than resolved silently. Time is linear in the text,
/// and every list is capped before it is walked.
pub fn read(text: &str) -> Result<Game, EgnError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    super::unique_keys::check(text)?;
    let value: Value =
        serde_json::from_str(text).map_err(|error| EgnError::NotJson(error.to_string()))?;
    let found = match value.get("fileType") {
        Some(Value::String(kind)) if kind == FILE_TYPE => None,
        Some(other) => Some(other.to_string()),
        None => Some("missing".to_owned()),
    };
    if let Some(found) = found {
        return Err(EgnError::Foreign { found });
    }
    let file: EgnFile =
        serde_json::from_value(value).map_err(|error| EgnError::Shape(error.to_string()))?;
    if !known_version(&file.version) {
        return Err(EgnError::UnknownVersion(file.version));
    }
    if file.deals.len() > MAX_DEALS {
        return Err(EgnError::TooMany {
            what: "deals",
            count: file.deals.len(),
            limit: MAX_DEALS,
        });
    }
    let names = player_names(&file.metadata.players)?;
    let (rules, winning_score, num_deals) = rules(file.metadata.ruleset.as_ref())?;
    let mut metadata = file.metadata;
    // The rules live in `rules` from here on; the writer states them anew.
    metadata.ruleset = None;
    let deals = file
        .deals
        .iter()
        .enumerate()
        .map(|(position, deal)| read_deal(position, deal))
        .collect();
    Ok(Game {
        version: file.version,
        metadata,
        names,
        rules,
        winning_score,
        num_deals,
        deals,
    })
}

/// `1.0` to `1.6`, with or without a patch number (`1.0.0`, `1.2.3`).
fn known_version(version: &str) -> bool {
    let mut parts = version.split('.');
    let major = parts.next();
    let minor = parts.next().and_then(|minor| minor.parse::<u32>().ok());
    let patch_ok = parts
        .next()
        .is_none_or(|patch| !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit()));
    major == Some("1")
        && minor.is_some_and(|minor| minor <= 6)
        && patch_ok
        && parts.next().is_none()
}

fn player_names(players: &[Value]) -> Result<[String; 4], EgnError> {
    if players.len() != 4 {
        return Err(EgnError::Players(players.len()));
    }
    let name = |seat: usize| match &players[seat] {
        Value::String(name) => name.clone(),
        Value::Object(object) => object
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("seat {seat}"), str::to_owned),
        _ => format!("seat {seat}"),
    };
    Ok([name(0), name(1), name(2), name(3)])
}

type RuleOptions = (Rules, Option<i64>, Option<i64>);

/// The ruleset as engine rules, the score that wins and the number of
/// deals. Every key is checked: an option that would change how a hand is
/// played or scored and that the engine does not play is refused by name,
/// rather than replayed under rules the players did not use.
fn rules(ruleset: Option<&Map<String, Value>>) -> Result<RuleOptions, EgnError> {
    let mut rules = Rules::default();
    let (mut winning_score, mut num_deals) = (None, None);
    let Some(ruleset) = ruleset else {
        return Ok((rules, winning_score, num_deals));
    };
    for (name, value) in ruleset {
        let refuse = |why: &str| EgnError::UnsupportedRule {
            name: name.clone(),
            value: value.to_string(),
            why: why.to_owned(),
        };
        let flag = || {
            value
                .as_bool()
                .ok_or_else(|| refuse("expected true or false"))
        };
        let number = || {
            value
                .as_i64()
                .ok_or_else(|| refuse("expected a whole number"))
        };
        let only = |wanted: i64, why: &str| match number()? {
            n if n == wanted => Ok(()),
            _ => Err(refuse(why)),
        };
        let off = |why: &str| if flag()? { Err(refuse(why)) } else { Ok(()) };
        match name.as_str() {
            "std" => rules.stick_the_dealer = flag()?,
            "defend_alone" => rules.lone_defender = flag()?,
            "loner_lead" => {
                rules.loner_lead = match value.as_str() {
                    Some("LEFT_OF_DEALER") => LonerLead::LeftOfDealer,
                    Some("LEFT_OF_LONER") => LonerLead::LeftOfLoner,
                    _ => return Err(refuse("expected \"LEFT_OF_DEALER\" or \"LEFT_OF_LONER\"")),
                }
            }
            "winning_score" => winning_score = Some(number()?),
            "num_deals" => num_deals = Some(number()?),
            "min_rank" => only(9, "the engine plays the 24-card deck (9 and up) only")?,
            "num_players" => only(4, "the engine plays four players in two partnerships only")?,
            "loner_march_score" => only(4, "the engine scores a lone march 4")?,
            "loner_euchred_score" => only(2, "the engine scores a euchred loner 2")?,
            "canadian" => rules.canadian_loners = flag()?,
            "farmers" => off("farmer's hands are not a rule the engine plays")?,
            "partners_best" => off("passing the loner a best card is not a rule the engine plays")?,
            "go_under" => {
                off("going under (swapping with the kitty) is not a rule the engine plays")?;
            }
            "joker" => off("the joker (benny) is not in the engine's deck")?,
            "allow_no_trump" => off("no-trump calls are not a rule the engine plays")?,
            "fast_break" => off("fast-break scoring is not a rule the engine plays")?,
            "four_trick_tokens" => off("four-trick tokens are not a rule the engine plays")?,
            _ => {
                return Err(refuse(
                    "an option this reader does not know; it will not replay a game under rules it cannot check",
                ));
            }
        }
    }
    Ok((rules, winning_score, num_deals))
}

fn read_deal(position: usize, value: &Value) -> Result<RecordedDeal, DealError> {
    let number = value
        .get("dealNumber")
        .and_then(Value::as_i64)
        .unwrap_or(position as i64);
    let fail = |problem: DealProblem| DealError { number, problem };
    if value.is_string() {
        return Err(fail(DealProblem::Field(
            "a condensed (bit-packed base64) deal; convert the file to expanded JSON with the EGN project's egn-convert".to_owned(),
        )));
    }
    let deal: EgnDeal = serde_json::from_value(value.clone())
        .map_err(|error| fail(DealProblem::Field(error.to_string())))?;
    parse_deal(deal).map_err(fail)
}

fn parse_deal(deal: EgnDeal) -> Result<RecordedDeal, DealProblem> {
    let field = |name: &str, why: String| DealProblem::Inconsistent {
        field: name.to_owned(),
        why,
    };
    let dealer = match deal.initial_state.dealer {
        seat @ 0..=3 => Seat::from_index(seat as u8),
        other => {
            return Err(field(
                "initialState.dealer",
                format!("{other} is not a seat (0 to 3)"),
            ));
        }
    };
    let upcard = card(&deal.initial_state.up_card, None, "initialState.upCard")?;
    let mut hands = [None; 4];
    match &deal.initial_state.player_cards {
        None => {}
        Some(lists) if lists.len() == 4 => {
            for (seat, list) in lists.iter().enumerate() {
                let name = format!("initialState.playerCards[{seat}]");
                let mut hand = CardSet::EMPTY;
                for text in list {
                    let card = card(text, None, &name)?;
                    if hand.contains(card) {
                        return Err(field(&name, format!("{card} twice")));
                    }
                    hand = hand.with(card);
                }
                hands[seat] = match list.len() {
                    0 => None,
                    5 => Some(hand),
                    count => {
                        return Err(field(
                            &name,
                            format!("{count} cards; a hand is five cards, or none where unknown"),
                        ));
                    }
                };
            }
        }
        Some(lists) => {
            return Err(field(
                "initialState.playerCards",
                format!(
                    "{} hands; a record lists four (empty where unknown)",
                    lists.len()
                ),
            ));
        }
    }
    let mut bidding = None;
    let mut play = None;
    for phase in deal.phases {
        let slot_taken = match phase {
            EgnPhase::Bidding(phase) => bidding.replace(phase).is_some(),
            EgnPhase::TrickPlay(phase) => play.replace(phase).is_some(),
        };
        if slot_taken {
            return Err(field(
                "phases",
                "two phases of one type; a deal has one bidding and one trick play".to_owned(),
            ));
        }
    }
    let Some(bidding) = bidding else {
        return Err(field(
            "phases",
            "no EUCHRE_BIDDING phase; the calls are needed to replay the deal".to_owned(),
        ));
    };
    let calls = read_calls(&bidding.calls, bidding.is_alone, upcard.suit())?;
    let trump = calls.iter().find_map(|action| match *action {
        Action::Order { .. } => Some(upcard.suit()),
        Action::Call { suit, .. } => Some(suit),
        _ => None,
    });
    let lone_defender = match bidding.alone_defender {
        None | Some(-1) => None,
        Some(seat @ 0..=3) => Some(Seat::from_index(seat as u8)),
        Some(other) => {
            return Err(field(
                "aloneDefender",
                format!("{other} is not a seat (0 to 3, or -1 for none)"),
            ));
        }
    };
    let discard = bidding
        .discard
        .as_deref()
        .map(|text| card(text, trump, "discard"))
        .transpose()?;
    if bidding.card_exchanges.is_some() {
        return Err(field(
            "cardExchanges",
            "card exchanges belong to rules the engine does not play".to_owned(),
        ));
    }
    let mut annotations = annotations_of(&bidding.call_annotations, Annotated::Call)?;
    let mut tricks = Vec::new();
    if let Some(play) = &play {
        if play.tricks.len() > 5 || play.tricks.iter().any(|trick| trick.len() > 4) {
            return Err(field(
                "tricks",
                "more than five tricks, or a trick of more than four cards".to_owned(),
            ));
        }
        for (index, trick) in play.tricks.iter().enumerate() {
            let name = format!("tricks[{index}]");
            tricks.push(
                trick
                    .iter()
                    .map(|text| card(text, trump, &name))
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        annotations.extend(annotations_of(&play.play_annotations, Annotated::Play)?);
    }
    if deal.alternative_lines.len() > MAX_ALTERNATIVE_LINES {
        return Err(field(
            "alternativeLines",
            format!(
                "{} lines; at most {MAX_ALTERNATIVE_LINES} are read",
                deal.alternative_lines.len()
            ),
        ));
    }
    Ok(RecordedDeal {
        number: deal.deal_number,
        dealer,
        upcard,
        hands,
        calls,
        lone_defender,
        discard,
        tricks,
        annotations,
        alternative_lines: deal.alternative_lines,
    })
}

/// The calls as actions: round 1 from the dealer's left (`Pass`, `Order`),
/// then round 2 (`Pass` or a suit letter). The first call that is not a
/// pass makes trump; `is_alone` says whether its maker went alone.
fn read_calls(
    calls: &[String],
    is_alone: bool,
    upcard_suit: Suit,
) -> Result<Vec<Action>, DealProblem> {
    if calls.len() > 8 {
        return Err(DealProblem::Inconsistent {
            field: "calls".to_owned(),
            why: format!(
                "{} calls; an auction has at most eight (four a round)",
                calls.len()
            ),
        });
    }
    let mut actions = Vec::with_capacity(calls.len());
    for (index, text) in calls.iter().enumerate() {
        let bad = |why: String| DealProblem::Inconsistent {
            field: format!("calls[{index}]"),
            why,
        };
        if actions.last().is_some_and(|action| *action != Action::Pass) {
            return Err(bad(format!(
                "'{text}' after trump was made; the calls end with the maker's"
            )));
        }
        let round_one = index < 4;
        let action = match text.as_str() {
            "Pass" => Action::Pass,
            "Order" | "PickUp" | "Alone" | "Call" if round_one => Action::Order { alone: is_alone },
            "s" | "h" | "d" | "c" if !round_one => {
                let suit: Suit = text.parse().map_err(|_| bad(format!("'{text}'")))?;
                if suit == upcard_suit {
                    return Err(bad(format!(
                        "'{text}' names the upcard's suit, which was turned down"
                    )));
                }
                Action::Call {
                    suit,
                    alone: is_alone,
                }
            }
            "n" => {
                return Err(bad(
                    "no-trump calls are not a rule the engine plays".to_owned()
                ));
            }
            _ if round_one => {
                return Err(bad(format!(
                    "'{text}' in round 1; expected \"Pass\" or \"Order\""
                )));
            }
            _ => {
                return Err(bad(format!(
                    "'{text}' in round 2; expected \"Pass\" or a suit letter (s, h, d, c)"
                )));
            }
        };
        actions.push(action);
    }
    Ok(actions)
}

fn annotations_of(
    map: &EgnAnnotations,
    at: fn(usize) -> Annotated,
) -> Result<Vec<Annotation>, DealProblem> {
    let too_many = |what: String| DealProblem::Inconsistent {
        field: "annotations".to_owned(),
        why: what,
    };
    if map.len() > MAX_ANNOTATED {
        return Err(too_many(format!(
            "{} annotated decisions; at most {MAX_ANNOTATED} are read",
            map.len()
        )));
    }
    let mut out = Vec::new();
    for (key, texts) in map {
        if texts.len() > MAX_COMMENTS {
            return Err(too_many(format!(
                "{} comments on decision {key}; at most {MAX_COMMENTS} are read",
                texts.len()
            )));
        }
        let index: usize = key.parse().map_err(|_| DealProblem::Inconsistent {
            field: "annotations".to_owned(),
            why: format!("key '{key}' is not a decision index"),
        })?;
        for text in texts {
            let (label, rest) = Label::split(text);
            out.push(Annotation {
                at: at(index),
                label,
                text: rest.to_owned(),
            });
        }
    }
    Ok(out)
}

/// One card in EGN notation: rank then suit (`9c`, `Nc` for a nine, `Td`),
/// or `R`/`L` for the bowers once trump is known.
fn card(text: &str, trump: Option<Suit>, field: &str) -> Result<Card, DealProblem> {
    let refuse = |why: &str| DealProblem::Card {
        field: field.to_owned(),
        text: text.to_owned(),
        why: why.to_owned(),
    };
    let mut chars = text.chars();
    let (first, second) = (chars.next(), chars.next());
    if chars.next().is_some() {
        return Err(refuse("expected two characters, rank then suit"));
    }
    let rank = match (first, second) {
        (Some('R' | 'L'), None) => {
            let trump = trump.ok_or_else(|| refuse("a bower before trump is made"))?;
            let suit = if first == Some('R') {
                trump
            } else {
                trump.same_colour()
            };
            return Ok(Card::new(suit, Rank::Jack));
        }
        (Some('B'), None) => return Err(refuse("the joker is not in the engine's deck")),
        (Some(rank), Some(_)) => rank,
        _ => return Err(refuse("expected rank then suit, e.g. 9c, Td, Jh, As")),
    };
    let rank = match rank {
        '9' | 'N' => Rank::Nine,
        'X' => return Err(refuse("an unknown card; replay needs every card")),
        '7' | '8' => return Err(refuse("7s and 8s are not in the 24-card deck")),
        letter => Rank::from_letter(letter).ok_or_else(|| refuse("unknown rank"))?,
    };
    let suit = match second.map(|c| c.to_ascii_lowercase()) {
        Some('c') => Suit::Clubs,
        Some('d') => Suit::Diamonds,
        Some('h') => Suit::Hearts,
        Some('s') => Suit::Spades,
        Some('x') => return Err(refuse("an unknown suit; replay needs every card")),
        Some('t' | 'n' | 'g') => {
            return Err(refuse(
                "a generic suit (trump, next, green); replay needs real suits",
            ));
        }
        _ => return Err(refuse("unknown suit")),
    };
    Ok(Card::new(suit, rank))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_one_oh_to_one_six() {
        for good in ["1.0", "1.0.0", "1.4", "1.2.3", "1.6"] {
            assert!(known_version(good), "{good}");
        }
        for bad in ["1.7", "2.0", "1", "1.4.", "1.x", "", "1.4.0.1"] {
            assert!(!known_version(bad), "{bad}");
        }
    }

    #[test]
    fn cards_in_every_spelling() {
        let trump = Some(Suit::Clubs);
        assert_eq!(card("Nc", None, "f").unwrap(), "9c".parse().unwrap());
        assert_eq!(card("TD", None, "f").unwrap(), "Td".parse().unwrap());
        assert_eq!(card("R", trump, "f").unwrap(), "Jc".parse().unwrap());
        assert_eq!(card("L", trump, "f").unwrap(), "Js".parse().unwrap());
        for bad in ["Xx", "Jx", "B", "7c", "9t", "L", "Ahh", ""] {
            assert!(card(bad, None, "f").is_err(), "{bad}");
        }
    }

    #[test]
    fn labels_longest_first() {
        assert_eq!(Label::split("[??]Bad"), (Some(Label::Blunder), "Bad"));
        assert_eq!(Label::split("[?] Hm"), (Some(Label::Mistake), "Hm"));
        assert_eq!(Label::split("[!!]Wow"), (Some(Label::Brilliant), "Wow"));
        assert_eq!(Label::split("[?!]x"), (Some(Label::Dubious), "x"));
        assert_eq!(Label::split("plain"), (None, "plain"));
    }
}
