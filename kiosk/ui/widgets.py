"""The few widgets every screen is built from: text that never overflows, large buttons, input
fields, coloured panels, lists, the quantity pad, the status bar and the bar chart.

Each widget may carry an `ident` so tests (and people reading the tree) can find it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from kivy.effects.scroll import ScrollEffect
from kivy.graphics import Color, Rectangle, RoundedRectangle
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from kiosk.ui import theme as t
from kiosk.ui.theme import rgba, text_on, theme
from kiosk.viewmodels import common
from kiosk.viewmodels.manager import ChartVM


class Text(Label):  # type: ignore[misc]
    """A label whose text wraps to its width (or is shortened with an ellipsis on one line).

    `fit=True`: its height follows its text, for stacking in lists and columns.
    """

    ident = StringProperty("")

    def __init__(
        self,
        text: str = "",
        *,
        size: float = t.BODY,
        colour: str = common.TEXT,
        bold: bool = False,
        halign: str = "left",
        valign: str = "middle",
        one_line: bool = False,
        fit: bool = False,
        ident: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            text=text,
            bold=bold,
            halign=halign,
            valign=valign,
            color=rgba(colour),
            ident=ident,
            **kwargs,
        )
        self._base = size
        self._one_line = one_line
        self._fit = fit
        if one_line:
            self.shorten = True
            self.shorten_from = "right"
            self.max_lines = 1
        if fit:
            self.size_hint_y = None
        theme.bind(scale=self._rescale, text_scale=self._rescale)
        self.bind(size=self._wrap, texture_size=self._follow)
        self._rescale()

    def _rescale(self, *_: object) -> None:
        self.font_size = theme.font(self._base)
        self.padding = (theme.px(4), theme.px(2))

    def set_size(self, size: float) -> None:
        """Its type at `size` (at 800x480, scaled as ever) from now on."""
        self._base = size
        self._rescale()

    def _wrap(self, *_: object) -> None:
        width = max(1.0, self.width - 2 * theme.px(4))
        self.text_size = (width, None if self._fit else max(1.0, self.height))

    def _follow(self, *_: object) -> None:
        if self._fit:
            self.height = self.texture_size[1] + theme.px(4)

    def set_colour(self, colour: str) -> None:
        self.color = rgba(colour)


class StatusText(Text):
    """A part of the staff's status line: scaled with the window, but not with a player's
    large-text mode (five parts must keep sharing 800 px)."""

    def _rescale(self, *_: object) -> None:
        self.font_size = theme.px(self._base)
        self.padding = (theme.px(4), theme.px(2))


class TouchButton(Button):  # type: ignore[misc]
    """A large button: at least 48 px (9 mm) each way at 800x480, high contrast."""

    ident = StringProperty("")

    def __init__(
        self,
        text: str = "",
        *,
        on_press: Callable[[], None] | None = None,
        colour: str = common.INFO,
        size: float = t.LARGE,
        height: float = t.BUTTON,
        ident: str = "",
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("size_hint_y", None)
        super().__init__(
            text=text,
            background_normal="",
            background_down="",
            background_disabled_normal="",
            halign="center",
            valign="middle",
            ident=ident,
            **kwargs,
        )
        self.bold = True
        self._base_font = size
        self._base_height = height
        self._colour = colour
        self._action = on_press
        self.shorten = True
        self.max_lines = 2
        theme.bind(scale=self._rescale, text_scale=self._rescale)
        self.bind(size=self._wrap, disabled=self._paint, state=self._paint)
        self._rescale()
        self._paint()

    def _rescale(self, *_: object) -> None:
        self.font_size = theme.font(self._base_font)
        if self.size_hint_y is None:
            self.height = theme.px(self._base_height) * float(theme.text_scale)

    def _wrap(self, *_: object) -> None:
        self.text_size = (max(1.0, self.width - theme.px(8)), max(1.0, self.height))

    def set_colour(self, colour: str) -> None:
        self._colour = colour
        self._paint()

    def _paint(self, *_: object) -> None:
        if self.disabled:
            self.background_color = rgba(common.PANEL_HI)
            self.disabled_color = rgba(common.MUTED)
        else:
            pressed = self.state == "down"
            self.background_color = rgba(self._colour, 0.75 if pressed else 1.0)
            self.color = text_on(self._colour)

    def on_release(self) -> None:
        if self._action is not None:
            self._action()


class Field(TextInput):  # type: ignore[misc]
    """A one-line input, large type. `on_enter` runs on Enter (a scanner's CR too)."""

    ident = StringProperty("")

    def __init__(
        self,
        hint: str = "",
        *,
        on_enter: Callable[[str], None] | None = None,
        ident: str = "",
        numeric: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            hint_text=hint,
            multiline=False,
            write_tab=False,
            ident=ident,
            size_hint_y=None,
            background_color=rgba("#FFFFFF"),
            foreground_color=rgba("#000000"),
            hint_text_color=rgba("#5A6470"),
            input_filter="int" if numeric else None,
            **kwargs,
        )
        self._enter = on_enter
        theme.bind(scale=self._rescale)
        self.bind(height=self._centre, font_size=self._centre)
        self._rescale()

    def _rescale(self, *_: object) -> None:
        self.font_size = theme.px(t.LARGE)
        self.height = theme.px(t.BUTTON)
        self._centre()

    def _centre(self, *_: object) -> None:
        line = self.font_size * 1.2
        pad = max(0.0, (self.height - line) / 2)
        self.padding = (theme.px(8), pad, theme.px(8), pad)

    def on_text_validate(self) -> None:
        if self._enter is not None:
            self._enter(self.text)

    def on_focus(self, _instance: object, focused: bool) -> None:
        """A touch station has no keyboard: the focus brings up the on-screen one."""
        host = KeyboardHost.current
        if focused and host is not None:
            host.attach(self)


class Panel(BoxLayout):  # type: ignore[misc]
    """A box with a coloured, rounded background."""

    ident = StringProperty("")

    def __init__(self, colour: str = common.PANEL, *, ident: str = "", **kwargs: Any) -> None:
        kwargs.setdefault("padding", theme.px(t.GAP))
        kwargs.setdefault("spacing", theme.px(t.GAP))
        super().__init__(ident=ident, **kwargs)
        with self.canvas.before:
            self._colour = Color(*rgba(colour))
            self._rect = RoundedRectangle(radius=[theme.px(6)])
        self.bind(pos=self._redraw, size=self._redraw)
        theme.bind(scale=self._respace)

    def _respace(self, *_: object) -> None:
        self.padding = theme.px(t.GAP)
        self.spacing = theme.px(t.GAP)

    def _redraw(self, *_: object) -> None:
        self._rect.pos = self.pos
        self._rect.size = self.size

    def set_colour(self, colour: str) -> None:
        self._colour.rgba = rgba(colour)


class Row(BoxLayout):  # type: ignore[misc]
    """A horizontal row of fixed (scaled) height."""

    def __init__(self, height: float = t.BUTTON, **kwargs: Any) -> None:
        super().__init__(orientation="horizontal", size_hint_y=None, **kwargs)
        self._base_height = height
        theme.bind(scale=self._rescale, text_scale=self._rescale)
        self._rescale()

    def _rescale(self, *_: object) -> None:
        self.height = theme.px(self._base_height) * float(theme.text_scale)
        self.spacing = theme.px(t.GAP)


class ListBox(ScrollView):  # type: ignore[misc]
    """A vertical list that scrolls when it holds more than fits."""

    ident = StringProperty("")

    def __init__(self, *, ident: str = "", **kwargs: Any) -> None:
        super().__init__(
            ident=ident,
            do_scroll_x=False,
            bar_width=8,
            always_overscroll=False,  # a list that fits does not move under a finger
            effect_cls=ScrollEffect,
            **kwargs,
        )
        self.box = GridLayout(cols=1, size_hint_y=None, spacing=theme.px(t.GAP))
        self.box.bind(minimum_height=self.box.setter("height"))
        self.add_widget(self.box)

    def fill(self, widgets: Iterable[Widget]) -> None:
        self.box.clear_widgets()
        for widget in widgets:
            self.box.add_widget(widget)
        self.scroll_y = 1


def item(lines: list[tuple[str, float, str]], colour: str = common.PANEL) -> Panel:
    """A list item: lines of (text, size, colour) stacked in a panel that fits them."""
    panel = Panel(colour, orientation="vertical", size_hint_y=None)
    labels = [Text(text, size=size, colour=readable(fg), fit=True) for text, size, fg in lines]
    for label in labels:
        panel.add_widget(label)

    def fit(*_: object) -> None:
        panel.height = sum(x.height for x in labels) + theme.px(t.GAP) * (len(labels) + 1)

    for label in labels:
        label.bind(height=fit)
    fit()
    return panel


class NumberPad(GridLayout):  # type: ignore[misc]
    """Digits, C and DEL in large keys; `on_key(key)` for each press."""

    ident = StringProperty("")

    def __init__(self, on_key: Callable[[str], None], *, ident: str = "pad", **kwargs: Any):
        super().__init__(cols=3, spacing=theme.px(t.GAP), ident=ident, **kwargs)
        for key in ("7", "8", "9", "4", "5", "6", "1", "2", "3", "C", "0", "DEL"):
            self.add_widget(
                TouchButton(
                    key,
                    on_press=partial(on_key, key),
                    colour=common.PANEL_HI if key.isdigit() else common.OFF,
                    size=t.TITLE if key.isdigit() else t.LARGE,
                    size_hint_y=1,
                    ident=f"key-{key}",
                )
            )


class StatusBar(BoxLayout):  # type: ignore[misc]
    """Station and operator, the hall link in words ("Hall link: OK", "OFFLINE since 19:40"),
    printer and scanner state, and at a kiosk its bill acceptor's: always visible, coloured by
    state."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(orientation="horizontal", size_hint_y=None, **kwargs)
        with self.canvas.before:
            Color(*rgba("#000000"))
            self._bg = Rectangle()
        self.bind(pos=self._redraw, size=self._redraw)
        size = t.SMALL - 2
        self.where = StatusText(size=size, one_line=True, ident="status-station")
        self.link = StatusText(size=size, one_line=True, ident="status-link")
        self.printer = StatusText(size=size, one_line=True, ident="status-printer")
        self.scanner = StatusText(size=size, one_line=True, ident="status-scanner")
        self.bills = StatusText(size=size, one_line=True, ident="status-bills")
        for label in (self.where, self.link, self.printer, self.scanner):
            self.add_widget(label)
        theme.bind(scale=self._rescale)
        self._rescale()

    def _rescale(self, *_: object) -> None:
        self.height = theme.px(30)
        if hasattr(self, "scanner"):
            self._balance()

    def _redraw(self, *_: object) -> None:
        self._bg.pos, self._bg.size = self.pos, self.size

    def show(self, vm: common.StatusBarVM) -> None:
        training = "TRAINING · " if vm.training else ""
        self.where.text = f"{training}{vm.station} · {vm.operator}"
        self.link.text = vm.link
        self.link.set_colour(readable(vm.link_colour))
        self.printer.text = vm.printer
        self.printer.set_colour(readable(vm.printer_colour))
        self.scanner.text = vm.scanner
        self.scanner.set_colour(readable(vm.scanner_colour))
        self.bills.text = vm.bills
        self.bills.set_colour(readable(vm.bills_colour))
        if vm.bills and self.bills.parent is None:
            self.add_widget(self.bills)
        elif not vm.bills and self.bills.parent is not None:
            self.remove_widget(self.bills)
        self._balance()

    def _balance(self, *_: object) -> None:
        """Each part as wide as its words (four or five parts share 800 px): none is cut short while
        the whole fits; when it does not, each gives up its share."""
        from kivy.core.text import Label as CoreLabel

        parts = [self.where, self.link, self.printer, self.scanner]
        if self.bills.parent is not None:
            parts.append(self.bills)
        widths = []
        for label in parts:
            probe = CoreLabel(text=label.text or " ", font_size=label.font_size, bold=label.bold)
            probe.refresh()
            widths.append((probe.texture.size[0] if probe.texture else 1) + 4 * theme.px(4))
        total = sum(widths) or 1
        for label, width in zip(parts, widths, strict=True):
            label.size_hint_x = width / total


def readable(colour: str) -> str:
    """State colours as text on black: the green and red lightened to keep the contrast."""
    return {
        common.OK: "#5BE37D",
        common.ERROR: "#FF6B6B",
        common.OFF: common.MUTED,
        common.INFO: "#7FB2FF",
    }.get(colour, colour)


class BarChart(Widget):  # type: ignore[misc]
    """Bars from a ChartVM (its geometry is computed outside Kivy), labels under each bar."""

    ident = StringProperty("")

    def __init__(self, *, ident: str = "chart", **kwargs: Any) -> None:
        super().__init__(ident=ident, **kwargs)
        self.vm: ChartVM | None = None
        self._labels: list[Text] = []
        self.bind(pos=self._draw, size=self._draw)

    def show(self, vm: ChartVM) -> None:
        self.vm = vm
        for label in self._labels:
            self.remove_widget(label)
        self._labels = []
        if not vm.bars:
            self._labels.append(Text(vm.empty_text, colour=common.MUTED, halign="center"))
        for bar in vm.bars:
            self._labels.append(Text(bar.label, size=t.SMALL, halign="center", one_line=True))
            self._labels.append(Text(bar.value_text, size=t.SMALL, halign="center", one_line=True))
        for label in self._labels:
            self.add_widget(label)
        self._draw()

    def _draw(self, *_: object) -> None:
        self.canvas.before.clear()
        vm = self.vm
        if vm is None:
            return
        with self.canvas.before:
            Color(*rgba(common.PANEL))
            Rectangle(pos=self.pos, size=self.size)
        if not vm.bars:
            label = self._labels[0]
            label.pos, label.size = self.pos, self.size
            return
        label_h = theme.px(22)
        count = len(vm.bars)
        slot = self.width / count
        top = self.height - 2 * label_h - theme.px(8)
        with self.canvas.before:
            Color(*rgba(common.INFO))
            for index, bar in enumerate(vm.bars):
                height = max(theme.px(2), top * bar.fraction)
                x = self.x + index * slot + slot * 0.15
                Rectangle(pos=(x, self.y + label_h), size=(slot * 0.7, height))
        for index, bar in enumerate(vm.bars):
            name, value = self._labels[2 * index], self._labels[2 * index + 1]
            x = self.x + index * slot
            name.pos, name.size = (x, self.y), (slot, label_h)
            height = max(theme.px(2), top * bar.fraction)
            value.pos, value.size = (x, self.y + label_h + height), (slot, label_h)


def spacer() -> Widget:
    return Widget()


class OutcomeView(Panel):
    """A command's outcome: the headline large, a shout (PUNCH NOW) larger, the detail, and
    for a refusal the rule it cites. Coloured by the outcome."""

    def __init__(
        self,
        *,
        headline: float = t.TITLE,
        shout: float = t.HUGE,
        detail: float = t.BODY,
        ident: str = "outcome",
        cite: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(common.PANEL, orientation="vertical", ident=ident, **kwargs)
        self._cite = cite  # False on a player's screen: no rule codes (staff screens cite)

        def line(size: float, name: str, bold: bool = False) -> Text:
            return Text(size=size, bold=bold, halign="center", fit=True, ident=f"{ident}-{name}")

        self.headline = line(headline, "headline", True)
        self.shout = line(shout, "shout", True)
        self.detail = line(detail, "detail")
        self.rule = line(t.SMALL, "rule")
        self._shout_size = shout
        self.clear("")

    def clear(self, hint: str) -> None:
        self.set_colour(common.PANEL)
        self._lay(hint, "", "", "")
        self.headline.set_colour(common.MUTED)

    def show(self, outcome: common.Outcome) -> None:
        self.set_colour(outcome.colour)
        cited = outcome.refusal.cited if outcome.refusal and self._cite else ""
        self._lay(outcome.headline, outcome.shout, outcome.detail, cited)
        fg = "#111111" if outcome.colour == common.WARN else common.TEXT
        for label in (self.headline, self.shout, self.detail, self.rule):
            label.set_colour(fg)

    def _lay(self, headline: str, shout: str, detail: str, rule: str) -> None:
        """The lines that have text, centred vertically."""
        self.clear_widgets()
        self.add_widget(Widget())
        for label, text in (
            (self.headline, headline),
            (self.shout, shout),
            (self.detail, detail),
            (self.rule, rule),
        ):
            label.text = text
            if text:
                self.add_widget(label)
        self.add_widget(Widget())


class Box(BoxLayout):  # type: ignore[misc]
    """A BoxLayout whose spacing scales with the window."""

    def __init__(self, orientation: str = "vertical", *, gap: float = t.GAP, **kwargs: Any):
        super().__init__(orientation=orientation, **kwargs)
        self._gap = gap
        theme.bind(scale=self._respace)
        self._respace()

    def _respace(self, *_: object) -> None:
        self.spacing = theme.px(self._gap)


class Grid(GridLayout):  # type: ignore[misc]
    """A GridLayout whose spacing scales with the window."""

    def __init__(self, *, gap: float = t.GAP, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._gap = gap
        theme.bind(scale=self._respace)
        self._respace()

    def _respace(self, *_: object) -> None:
        self.spacing = theme.px(self._gap)


class _FixedHeight:
    """A widget's height at 800x480, rescaled with the window. The theme lives as long as the
    process and holds a bound method weakly, a closure strongly: bound to a closure, every
    widget ever made fixed (and its whole screen, through its parents) would live as long."""

    def __init__(self, widget: Widget, height: float) -> None:
        self.widget = widget
        self.height = height

    def rescale(self, *_: object) -> None:
        self.widget.height = theme.px(self.height)


def fixed(widget: Widget, height: float) -> Widget:
    """Give `widget` a fixed height of `height` px at 800x480, scaled with the window."""
    widget.size_hint_y = None
    follower = _FixedHeight(widget, height)
    theme.bind(scale=follower.rescale)
    widget._booth_rescale = follower  # alive as long as the widget: the theme's ref is weak
    follower.rescale()
    return widget


class OutcomeBanner(Panel):
    """A one-row outcome for busy screens: the headline on the left, the detail and the rule
    it cites on the right."""

    def __init__(self, *, ident: str = "outcome", **kwargs: Any) -> None:
        super().__init__(common.PANEL, orientation="horizontal", ident=ident, **kwargs)
        self.headline = Text(size=t.LARGE, bold=True, ident=f"{ident}-headline", size_hint_x=0.42)
        self.detail = Text(size=t.SMALL, ident=f"{ident}-detail", size_hint_x=0.58)
        self.rule = self.detail  # the rule is the detail's last line
        self.add_widget(self.headline)
        self.add_widget(self.detail)

    def clear(self, hint: str) -> None:
        self.set_colour(common.PANEL)
        self.headline.size_hint_x = 1.0
        self.headline.halign = "center"
        self.headline.text, self.detail.text = hint, ""
        self.detail.size_hint_x = 0.0
        self.headline.set_colour(common.MUTED)

    def show(self, outcome: common.Outcome) -> None:
        self.set_colour(outcome.colour)
        self.headline.size_hint_x, self.detail.size_hint_x = 0.42, 0.58
        self.headline.halign = "left"
        cited = outcome.refusal.cited if outcome.refusal else ""
        self.headline.text = outcome.headline
        self.detail.text = "\n".join(x for x in (outcome.detail, cited) if x)
        fg = "#111111" if outcome.colour == common.WARN else common.TEXT
        self.headline.set_colour(fg)
        self.detail.set_colour(fg)


class FitText(Text):
    """One line in the largest type that fits its box (up to `size`): measured as rendered, so
    a long amount ("$1,234.50") shrinks instead of being clipped."""

    def __init__(self, text: str = "", *, size: float = t.HUGE, **kwargs: Any) -> None:
        kwargs.setdefault("halign", "center")
        super().__init__(text, size=size, **kwargs)
        self.bind(size=self._shrink, text=self._shrink)

    def _rescale(self, *_: object) -> None:
        super()._rescale()
        self._shrink()

    def _shrink(self, *_: object) -> None:
        from kivy.core.text import Label as CoreLabel

        base = theme.px(self._base)
        if not self.text:
            self.font_size = base
            return
        probe = CoreLabel(text=self.text, font_size=base, bold=self.bold)
        probe.refresh()
        width, height = probe.texture.size if probe.texture else (1, 1)
        room_w, room_h = self._room()
        self.font_size = max(1.0, base * min(1.0, room_w / max(1, width), room_h / max(1, height)))

    def _room(self) -> tuple[float, float]:
        """The width and height the one line may take inside the box."""
        return max(1.0, self.width - 2 * theme.px(6)), max(1.0, self.height - 2 * theme.px(2))


class MediaPicker(Row):
    """The files of one kind on the USB sticks plugged in, one button each (up to three, the
    newest): a tap picks it (`on_pick(path)`), the screen's Receive or Import takes it."""

    SHOWN = 3

    def __init__(
        self,
        kind: str,
        on_pick: Callable[[str], None],
        on_again: Callable[[], None],
        *,
        ident: str,
    ) -> None:
        super().__init__()
        self.kind = kind
        self._on_pick = on_pick
        self._on_again = on_again
        self.ident = ident
        self.found: list[Any] = []

    def show(self, found: list[Any]) -> None:
        self.found = found
        self.clear_widgets()
        if not found:
            self.add_widget(
                Text(
                    f"No {self.kind} on a USB stick: plug one in, then Look again",
                    size=t.SMALL,
                    colour=common.MUTED,
                    ident=f"{self.ident}-none",
                )
            )
        for index, item_ in enumerate(found[: self.SHOWN]):
            self.add_widget(
                TouchButton(
                    item_.label if len({f.root for f in found}) > 1 else item_.name,
                    on_press=partial(self._pick, index),
                    colour=common.PANEL_HI,
                    size=t.SMALL,
                    ident=f"{self.ident}-{index}",
                )
            )
        look = TouchButton(
            "Look again",
            on_press=self._again,
            colour=common.OFF,
            size=t.SMALL,
            ident=f"{self.ident}-again",
        )
        look.size_hint_x = 0.45 if found else 0.35
        self.add_widget(look)

    def _pick(self, index: int) -> None:
        for child in self.children:
            if isinstance(child, TouchButton) and child.ident[-1:].isdigit():
                chosen = child.ident == f"{self.ident}-{index}"
                child.set_colour(common.INFO if chosen else common.PANEL_HI)
        self._on_pick(str(self.found[index].path))

    def _again(self) -> None:
        self._on_again()


class KeyboardHost:
    """Where the on-screen keyboard lives: the front end registers one; a Field that gets the
    focus asks it for the keyboard (touch stations have no other)."""

    current: Any = None  # the front end showing (kiosk.ui.front.Front): its attach(field)


class OnScreenKeyboard(Panel):
    """Letters, digits and the signs codes and names use, large keys; it types into the field
    that has the focus and shows what is typed on its top line (the field may sit under it)."""

    ROWS = ("1234567890", "QWERTYUIOP", "ASDFGHJKL'", "ZXCVBNM-/.")

    def __init__(self, on_done: Callable[[], None]) -> None:
        super().__init__(
            common.PANEL_HI,
            orientation="vertical",
            ident="osk",
            size_hint=(1, None),
            pos_hint={"x": 0, "y": 0},
        )
        self.field: Field | None = None
        self._on_done = on_done
        self.lower = False
        self.preview = Text(size=t.BODY, one_line=True, ident="osk-preview")
        fixed(self.preview, 30)
        self.add_widget(self.preview)
        self.keys: list[TouchButton] = []
        for row in self.ROWS:
            line = Row(height=t.MIN_TARGET)
            for key in row:
                button = TouchButton(
                    key,
                    on_press=partial(self._type, key),
                    colour=common.PANEL,
                    size=t.BODY,
                    height=t.MIN_TARGET,
                    ident=f"osk-{key}",
                )
                self.keys.append(button)
                line.add_widget(button)
            self.add_widget(line)
        last = Row(height=t.MIN_TARGET)
        for label, action, colour, ident, width in (
            ("abc", self._case, common.OFF, "osk-case", 0.16),
            ("Space", partial(self._type, " "), common.PANEL, "osk-space", 0.4),
            ("DEL", self._delete, common.OFF, "osk-del", 0.16),
            ("Done", self._done, common.OK, "osk-done", 0.28),
        ):
            button = TouchButton(
                label,
                on_press=action,
                colour=colour,
                size=t.BODY,
                height=t.MIN_TARGET,
                ident=ident,
            )
            button.size_hint_x = width
            last.add_widget(button)
        self.add_widget(last)
        theme.bind(scale=self._fit)
        self._fit()

    def _fit(self, *_: object) -> None:
        rows = len(self.ROWS) + 1
        self.height = theme.px(30 + rows * t.MIN_TARGET + (rows + 2) * t.GAP + 2 * t.GAP)

    def attach(self, field: Field | None) -> None:
        self.field = field
        self._show()

    def _show(self) -> None:
        field = self.field
        if field is None:
            self.preview.text = ""
            return
        text = "•" * len(field.text) if field.password else field.text
        self.preview.text = f"{field.hint_text}: {text}_" if field.hint_text else f"{text}_"

    def _type(self, key: str) -> None:
        if self.field is None:
            return
        self.field.text += key.lower() if self.lower else key
        self._show()

    def _delete(self) -> None:
        if self.field is not None:
            self.field.text = self.field.text[:-1]
            self._show()

    def _case(self) -> None:
        self.lower = not self.lower
        for button in self.keys:
            button.text = button.text.lower() if self.lower else button.text.upper()

    def _done(self) -> None:
        field = self.field
        self._on_done()
        if field is not None:
            field.focus = False
            field.dispatch("on_text_validate")
