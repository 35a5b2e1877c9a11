use super::*;
use crate::bot::ActionValue;
use crate::bots::heuristic::Heuristic;

fn game() -> HumanGame {
    HumanGame::new(
        Arc::new(Heuristic),
        Arc::new(Heuristic),
        Rules::default(),
        10,
        3,
    )
}

/// A stopped turn of the bots leaves the game where they stopped, and
/// the next call goes on from there to the person's turn.
#[test]
fn bots_stopped_early_resume_where_they_stopped() {
    let mut game = game();
    let fresh = game.position();
    game.run_bots(&(Arc::new(|| true) as StopCheck));
    assert_eq!(game.position(), fresh, "a stop before any decision");
    game.run_bots(&crate::stop::never());
    assert!(game.persons_turn() || game.summary().is_some());
    assert!(!game.bots_to_move());
}

/// A saved game reads back as EGN and replays hand for hand.
#[test]
fn a_finished_game_saves_as_egn_that_replays() {
    let mut game = game();
    let never = crate::stop::never();
    game.run_bots(&never);
    let mut hands = 0;
    while game.winner().is_none() && hands < 40 {
        while game.persons_turn() {
            let action = game.state().legal_actions()[0];
            game.person_moves(action, &never).unwrap();
        }
        if game.summary().is_some() {
            hands += 1;
            if game.winner().is_none() {
                game.next_hand(&never).unwrap();
            }
        }
    }
    let read = egn::read(&game.egn()).unwrap();
    assert_eq!(read.deals.len(), hands);
    assert_eq!(read.names[2], "You");
    assert_eq!(read.winning_score, Some(10));
    let mut points = [0u32; 2];
    for deal in &read.deals {
        let rebuilt = egn::reconstruct(deal.as_ref().unwrap(), read.rules).unwrap();
        let outcome = rebuilt.end.outcome().unwrap();
        points[0] += u32::from(outcome.points[0]);
        points[1] += u32::from(outcome.points[1]);
    }
    assert_eq!(points, game.score);
}

/// Every bot at the table sees the game's score as each hand was
/// dealt, and the dealer of that hand.
#[test]
fn the_bots_see_the_games_score_as_each_hand_was_dealt() {
    let mut game = game();
    let never = crate::stop::never();
    assert_eq!(
        game.game_score(),
        Some(GameScore {
            points: [0, 0],
            dealer: game.deal().dealer,
            target: 10
        })
    );
    game.run_bots(&never);
    while game.summary().is_none() {
        let action = game.state().legal_actions()[0];
        game.person_moves(action, &never).unwrap();
    }
    let after = game.score;
    game.next_hand(&never).unwrap();
    let seen = game.game_score().unwrap();
    assert_eq!(seen.points, after.map(|p| p as u8));
    assert_eq!(seen.dealer, game.deal().dealer);
    let endless = HumanGame::new(
        Arc::new(Heuristic),
        Arc::new(Heuristic),
        Rules::default(),
        500,
        3,
    );
    assert_eq!(endless.game_score(), None, "no model past 100 points");
}

#[test]
fn hints_are_for_the_persons_turn_only() {
    let mut game = game();
    game.run_bots(&crate::stop::never());
    assert!(game.persons_turn());
    let pimc = crate::bots::pimc::Pimc::new(8);
    let Some(Hint::Values {
        unit: LossUnit::Points,
        values,
        beside: Some(chances_beside),
    }) = game.hint(&pimc)
    else {
        panic!("PIMC values every legal move, and the score in view gives its chances beside");
    };
    let legal = game.state().legal_actions();
    assert_eq!(values.len(), legal.len());
    assert!(values.iter().all(|value| legal.contains(value.action)));
    assert!(matches!(game.hint(&Heuristic), Some(Hint::Choice(_))));
    let for_game = crate::bots::pimc::Pimc::for_game(8, crate::game_outcomes::reference());
    let Some(Hint::Values {
        unit: LossUnit::Chance,
        values: chances,
        beside: Some(points_beside),
    }) = game.hint(&for_game)
    else {
        panic!("a bot that plays for the game hints in chances of winning it, points beside");
    };
    assert!(
        chances.iter().all(|c| (0.0..=1.0).contains(&c.value)),
        "{chances:?}"
    );
    // The twin values the same worlds: each unit reads the same from either bot.
    assert_eq!(points_beside, values);
    assert_eq!(chances_beside, chances);
    game.person_moves(legal[0], &crate::stop::never()).unwrap();
    if !game.persons_turn() {
        assert_eq!(game.hint(&pimc), None);
    }
}

#[test]
fn positions_read_back_and_a_stale_one_is_refused() {
    let mut game = game();
    game.run_bots(&crate::stop::never());
    let at = game.position();
    assert_eq!(at.to_string().parse::<Position>().unwrap(), at);
    assert!(game.check_position(at).is_ok());
    let action = game.state().legal_actions()[0];
    game.person_moves(action, &crate::stop::never()).unwrap();
    assert!(matches!(
        game.check_position(at),
        Err(MoveError::Stale { .. })
    ));
    assert!("3".parse::<Position>().is_err());
    assert!("a.b".parse::<Position>().is_err());
}

/// The person's first card of the hand's first trick, once the bidding is
/// over: plays legal moves (passing where it may) until it is the person's
/// turn to play a card.
fn to_the_persons_card(game: &mut HumanGame) {
    let never = crate::stop::never();
    game.run_bots(&never);
    while game.summary().is_none() && game.state().stage() != Stage::Play {
        let legal = game.state().legal_actions();
        let action = if legal.contains(Action::Pass) {
            Action::Pass
        } else {
            legal[0]
        };
        game.person_moves(action, &never).unwrap();
    }
}

#[test]
fn a_move_taken_back_restores_the_table_and_meets_the_same_replies() {
    let never = crate::stop::never();
    let mut game = game().with_practice(true);
    game.run_bots(&never);
    assert!(!game.can_undo(), "nothing to take back yet");
    let before = (game.position(), game.history().to_vec(), game.score);
    let action = game.state().legal_actions()[0];
    game.person_moves(action, &never).unwrap();
    let replies = game.history().to_vec();
    assert!(game.can_undo());
    game.undo().unwrap();
    assert_eq!(game.history(), &before.1[..]);
    assert_eq!(game.score, before.2);
    assert_eq!(game.taken_back(), 1);
    assert_ne!(
        game.position(),
        before.0,
        "a page from before the undo is stale"
    );
    game.person_moves(action, &never).unwrap();
    assert_eq!(game.history(), &replies[..], "the bots reply as before");
    assert!(
        egn::read(&game.egn()).is_ok(),
        "a practice game still saves"
    );
}

#[test]
fn only_a_practice_game_takes_moves_back_and_never_past_the_deal() {
    let never = crate::stop::never();
    let mut game = game();
    game.run_bots(&never);
    let action = game.state().legal_actions()[0];
    game.person_moves(action, &never).unwrap();
    assert!(matches!(game.undo(), Err(MoveError::CannotUndo(_))));
    let mut practice = self::game().with_practice(true);
    practice.run_bots(&never);
    while practice.summary().is_none() {
        let action = practice.state().legal_actions()[0];
        practice.person_moves(action, &never).unwrap();
    }
    practice.next_hand(&never).unwrap();
    assert!(
        matches!(practice.undo(), Err(MoveError::CannotUndo(_))),
        "the last hand's moves stay played"
    );
}

#[test]
fn forced_cards_are_played_for_the_person_who_asks() {
    let never = crate::stop::never();
    for seed in 0..20 {
        let mut game = HumanGame::new(
            Arc::new(Heuristic),
            Arc::new(Heuristic),
            Rules::default(),
            10,
            seed,
        );
        game.auto_play_forced = true;
        to_the_persons_card(&mut game);
        while game.summary().is_none() {
            assert!(game.persons_turn());
            let legal = game.state().legal_actions();
            assert!(
                legal.len() > 1 || game.state().stage() != Stage::Play,
                "seed {seed}: the person was asked to play their only card"
            );
            game.person_moves(legal[0], &never).unwrap();
        }
        // The last card of a hand is always forced: it was played for the
        // person, who answered only the choices.
        let plays = game
            .history()
            .iter()
            .filter(|(seat, action)| *seat == PERSON && matches!(action, Action::Play(_)))
            .count();
        if !game.state().sits_out(PERSON) {
            assert_eq!(plays, 5, "seed {seed}");
        }
    }
}

#[test]
fn the_hands_tricks_name_their_leader_and_winner() {
    let never = crate::stop::never();
    let mut game = game();
    to_the_persons_card(&mut game);
    while game.summary().is_none() {
        let action = game.state().legal_actions()[0];
        game.person_moves(action, &never).unwrap();
    }
    let tricks = game.tricks();
    assert_eq!(tricks.len(), 5);
    for pair in tricks.windows(2) {
        assert_eq!(
            Some(pair[1].leader),
            pair[0].winner,
            "the winner leads the next trick"
        );
    }
    for trick in tricks {
        assert!(trick.cards[trick.leader.index()].is_some());
        let winner = trick.winner.unwrap();
        assert!(trick.cards[winner.index()].is_some());
    }
    assert_eq!(game.last_trick(), tricks.last());
}

#[test]
fn a_hint_names_the_best_move_and_what_it_does() {
    let mut game = game();
    game.run_bots(&crate::stop::never());
    let pimc = crate::bots::pimc::Pimc::new(8);
    let hint = game.hint(&pimc).unwrap();
    let best = hint.best().unwrap();
    let Hint::Values { values, .. } = &hint else {
        panic!("PIMC values moves");
    };
    let top = values.iter().map(|v| v.value).fold(f64::MIN, f64::max);
    assert!(values.iter().any(|v| v.action == best && v.value == top));
    let advice = hint
        .advice(game.state(), &euchre_game::engine::words::Symbols)
        .unwrap();
    assert!(
        advice.starts_with(&format!("Best: {}", best.pretty())),
        "{advice}"
    );
    assert!(advice.contains(": it "), "{advice}");
    // Known values: the margin over the next best, or a tie named as one.
    let valued = |pass: f64, order: f64| {
        let value = |action, value| ActionValue {
            action,
            value,
            spread: 1.0,
            worlds: 8,
            shortfall_error: 0.0,
        };
        Hint::Values {
            unit: LossUnit::Points,
            values: vec![
                value(Action::Pass, pass),
                value(Action::Order { alone: false }, order),
            ],
            beside: None,
        }
    };
    let symbols = euchre_game::engine::words::Symbols;
    let said = valued(0.5, -0.2).advice(game.state(), &symbols).unwrap();
    assert!(
        said.starts_with("Best: pass (+0.50 points a hand, 0.70 more than order up): it passes"),
        "{said}"
    );
    let level = valued(0.5, 0.499).advice(game.state(), &symbols).unwrap();
    assert!(level.contains(", as good as order up)"), "{level}");
    // Beside the points, the chance of winning the game; and where the
    // game prefers another move, which and by how much.
    let with_chances = |pass: f64, order: f64| {
        let Hint::Values { unit, values, .. } = valued(0.5, -0.2) else {
            unreachable!()
        };
        let chances = values
            .iter()
            .zip([pass, order])
            .map(|(value, chance)| ActionValue {
                value: chance,
                ..*value
            })
            .collect();
        Hint::Values {
            unit,
            values,
            beside: Some(chances),
        }
    };
    let agreeing = with_chances(0.62, 0.55)
        .advice(game.state(), &symbols)
        .unwrap();
    assert!(
        agreeing.starts_with(
            "Best: pass (+0.50 points a hand, 0.70 more than order up; 62.0% to win the game): "
        ),
        "{agreeing}"
    );
    let differing = with_chances(0.52, 0.55)
        .advice(game.state(), &symbols)
        .unwrap();
    assert!(
        differing.contains(
            "; for the game, order up is better: 55.0% to win the game against 52.0% to win the game)"
        ),
        "{differing}"
    );
}
