"""Type stubs of the native part of ``euchre`` (see docs/python.md)."""

from typing import Any, Callable, Mapping, Optional, Sequence, TypedDict, Union

__version__: str
ACTIONS: list[str]
"""Every action word, by its dense id (0 to 59)."""
FEATURE_NAMES: list[str]
"""What each number of ``encode`` is."""

class EuchreError(ValueError): ...
class IllegalActionError(EuchreError): ...
class ViewError(EuchreError): ...
class SpecError(EuchreError): ...
class EgnError(EuchreError): ...
class BotError(EuchreError): ...

class Rules(TypedDict, total=False):
    stick_the_dealer: bool
    lone_defender: bool
    dealer_may_discard_upcard: bool
    loner_lead: str  # "left-of-dealer" or "left-of-loner"
    canadian_loners: bool

class Score(TypedDict, total=False):
    north_south: int
    east_west: int
    target: int  # 10 when left out

class View(TypedDict, total=False):
    """One seat's view: the bot API's request (docs/bot-api.md) plus the
    legal actions. Rule options are keys of their own."""

    dealer: str
    seat: str
    hand: list[str]
    upcard: str
    discard: str
    actions: list[str]
    score: Score
    seed: int
    legal: list[str]

class Hand:
    """One hand, stepped by action words (``"pass"``, ``"order alone"``,
    ``"call h"``, ``"discard Js"``, ``"play Js"``)."""

    def __init__(
        self,
        dealer: str,
        hands: Mapping[str, Sequence[str]],
        upcard: str,
        rules: Optional[Rules] = None,
        score: Optional[Score] = None,
    ) -> None: ...
    @staticmethod
    def deal(
        seed: int,
        dealer: str = "N",
        rules: Optional[Rules] = None,
        score: Optional[Score] = None,
    ) -> Hand: ...
    @staticmethod
    def replay(record: Mapping[str, Any]) -> Hand: ...
    @property
    def to_act(self) -> Optional[str]: ...
    @property
    def dealer(self) -> str: ...
    @property
    def upcard(self) -> str: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def stage(self) -> str: ...
    @property
    def hands(self) -> dict[str, list[str]]: ...
    @property
    def dealt(self) -> dict[str, list[str]]: ...
    @property
    def actions(self) -> list[tuple[str, str]]: ...
    @property
    def contract(self) -> Optional[dict[str, Any]]: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def tricks(self) -> dict[str, int]: ...
    @property
    def points(self) -> dict[str, int]: ...
    @property
    def score(self) -> Optional[dict[str, int]]: ...
    def legal_actions(self) -> list[str]: ...
    def apply(self, action: str) -> None: ...
    def view(self, seed: Optional[int] = None) -> View: ...
    def copy(self) -> Hand: ...
    def __copy__(self) -> Hand: ...

class Decision(TypedDict):
    action: str
    probabilities: Optional[dict[str, float]]
    values: Optional[list[dict[str, Any]]]
    unit: str

class Bot:
    """Any bot ``trainer eval`` accepts, by its spec (``bot_specs()``)."""

    def __init__(self, spec: str, rules: Optional[Rules] = None, unseen: str = "uniform") -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def plays_for_the_game(self) -> bool: ...
    @property
    def warnings(self) -> list[str]: ...
    def act(self, asked: Union[Hand, View], seed: Optional[int] = None) -> str: ...
    def decide(self, asked: Union[Hand, View], seed: Optional[int] = None) -> Decision: ...
    def report(self) -> Optional[str]: ...

Side = Union[str, Bot, Callable[[View], str]]

def duplicate_match(
    a: Side,
    b: Side,
    hands: int = 1000,
    seed: int = 1,
    rules: Optional[Rules] = None,
    unseen: str = "uniform",
    threads: Optional[int] = None,
) -> dict[str, Any]: ...
def duplicate_games(
    a: Side,
    b: Side,
    pairs: int = 100,
    target: int = 10,
    seed: int = 1,
    rules: Optional[Rules] = None,
    unseen: str = "uniform",
    threads: Optional[int] = None,
) -> dict[str, Any]: ...
def arena(
    bots: Mapping[str, Side],
    hands: int = 1000,
    games: Optional[int] = None,
    target: int = 10,
    seed: int = 1,
    rules: Optional[Rules] = None,
    unseen: str = "uniform",
    threads: Optional[int] = None,
) -> dict[str, Any]: ...
def read_egn(text: str) -> dict[str, Any]: ...
def write_egn(hands: Sequence[Hand], names: Optional[Sequence[str]] = None) -> str: ...
def analyze(
    text: str,
    judge: Optional[Side] = None,
    seed: int = 1,
    unseen: str = "uniform",
    threads: Optional[int] = None,
) -> dict[str, Any]: ...
def bot_specs() -> str: ...
def encode(asked: Union[Hand, View]) -> list[float]: ...
def legal_mask(asked: Union[Hand, View]) -> list[bool]: ...
def action_id(action: str) -> int: ...
