"""The web page in a real browser: headless Chromium driven by Selenium.

The browser and its driver are Debian's (``chromium``, ``chromium-driver``,
found on PATH; Selenium never downloads one: ``SE_OFFLINE=true``). Without
them these tests are skipped on a developer's machine, and fail under
``CI=true``, where a missing browser is a broken setup, not a reason to pass.

Each test starts its own server on a free port of 127.0.0.1 with the
installed plugins, and fails on any error the page logs to the console.
Controls are found by their visible labels, as a player finds them.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mathhammer.exceptions import ScenarioError
from mathhammer.registry import default_registry
from mathhammer.scenario import scenario_from_data
from mathhammer.simulate import compile_scenario, evaluate

pytest.importorskip("starlette")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver import ActionChains  # noqa: E402
from selenium.webdriver import Chrome as WebDriver  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webelement import WebElement  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from mathhammer.face.web.app import create_app  # noqa: E402
from mathhammer.face.web.links import fragment, read_fragment  # noqa: E402
from mathhammer.face.web.serve import running  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "target" / "web-artifacts"
"""Where the tests save screenshots of the result view (build output, not committed)."""

PHONE = (390, 844)
DESKTOP = (1280, 800)


def _browser_paths() -> tuple[str, str] | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running(create_app(registry=default_registry(), max_trials=10_000_000)) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    paths = _browser_paths()
    if paths is None:
        message = "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(message + "; under CI=true the browser tests must run")
        pytest.skip(message)
    os.environ["SE_OFFLINE"] = "true"  # never let Selenium fetch a browser or driver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = paths[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=en-US"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=paths[1]))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(browser: WebDriver, server: str) -> Iterator[WebDriver]:
    """The browser at a fresh copy of the page, desktop-sized; fails the test on console errors."""
    browser.set_window_size(*DESKTOP)
    browser.get("about:blank")
    _console(browser)  # drop what earlier tests left
    yield browser
    errors = [entry for entry in _console(browser) if entry["level"] == "SEVERE" and not _refused_input(entry)]
    assert not errors, f"the page logged errors: {errors}"


def _console(driver: WebDriver) -> list[dict[str, Any]]:
    """What the page logged to the console since the last call (Chromium's log, read through chromedriver)."""
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return entries


def _refused_input(entry: dict[str, Any]) -> bool:
    """Chromium logs every 4xx answer; the API's 400 for bad input is the page working, not an error."""
    return entry["source"] == "network" and "/api/" in entry["message"] and "status of 400" in entry["message"]


def open_page(driver: WebDriver, url: str) -> None:
    driver.get(url)
    WebDriverWait(driver, 30).until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")


def section(driver: WebDriver, title: str, within: WebElement | None = None) -> WebElement:
    """The fieldset (by its legend) or collapsible part (by its summary) titled ``title``."""
    found = driver.execute_script(
        """
        const [title, root] = arguments;
        const all = [...(root || document).querySelectorAll('fieldset, details')];
        return all.find((box) => {
          const head = box.querySelector(':scope > legend, :scope > summary');
          return head && head.textContent.trim() === title;
        }) || null;
        """,
        title,
        within,
    )
    assert found is not None, f"no part of the page is titled {title!r}"
    return found  # type: ignore[no-any-return]


def control(driver: WebDriver, label: str, within: WebElement | None = None) -> WebElement:
    """The visible control whose visible label reads ``label``, directly in ``within`` (not in a nested part)."""
    found = driver.execute_script(
        """
        const [text, root] = arguments;
        const labels = [...(root || document).querySelectorAll('label')].filter((l) =>
          l.textContent.trim() === text && (!root || l.closest('fieldset, details') === root));
        const label = labels.find((l) => l.offsetParent !== null);
        return label ? document.getElementById(label.htmlFor) : null;
        """,
        label,
        within,
    )
    assert found is not None, f"no visible control is labelled {label!r}"
    assert found.is_displayed() or found.get_attribute("type") == "file", f"{label!r} is not visible"
    return found  # type: ignore[no-any-return]


def button(driver: WebDriver, text: str, within: WebElement | None = None) -> WebElement:
    found = driver.execute_script(
        """
        const [text, root] = arguments;
        return [...(root || document).querySelectorAll('button')].find(
          (b) => b.textContent.trim() === text && b.offsetParent !== null) || null;
        """,
        text,
        within,
    )
    assert found is not None, f"no visible button reads {text!r}"
    return found  # type: ignore[no-any-return]


def fill(element: WebElement, value: str) -> None:
    element.clear()
    element.send_keys(value)


def fill_in(driver: WebDriver, within: WebElement, **values: str) -> None:
    """Type each value into the control of ``within`` labelled with its name (underscores read as spaces)."""
    for label, value in values.items():
        fill(control(driver, label.replace("_", " "), within), value)


def result_text(driver: WebDriver, testid: str, timeout: float = 60) -> str:
    def shown(d: WebDriver) -> Any:
        found = d.find_elements("css selector", f'#result:not([hidden]) [data-testid="{testid}"] strong')
        return found[0].text if found else False

    try:
        return WebDriverWait(driver, timeout).until(shown)  # type: ignore[no-any-return]
    except TimeoutException:
        status = driver.find_element("id", "status").text
        form_error = driver.find_element("id", "form-error").text
        raise AssertionError(f"no result shown; status {status!r}, error {form_error!r}") from None


def no_horizontal_scroll(driver: WebDriver) -> None:
    widths = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths[0]} px of content in {widths[1]} px"


def every_control_is_labelled(driver: WebDriver) -> None:
    """Every field of the page a player can see has a label they can see too."""
    unlabelled = driver.execute_script(
        """
        const visible = (e) => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden';
        return [...document.querySelectorAll('input, select, textarea')]
          .filter((c) => visible(c) || (c.type === 'file' && !c.closest('[hidden]')))
          .filter((c) => ![...c.labels].some((l) => visible(l) && l.textContent.trim()))
          .map((c) => c.outerHTML);
        """
    )
    assert unlabelled == [], f"controls without a visible label: {unlabelled}"


def fill_boltguns(driver: WebDriver) -> None:
    """The README's scenario (examples/boltguns.toml), typed in by label."""
    Select(control(driver, "Ruleset")).select_by_visible_text("Warhammer 40,000 (wh40k)")
    attacker = section(driver, "Attacker")
    weapon = section(driver, "Weapon 1", section(driver, "Weapons", attacker))
    fill(control(driver, "Name", weapon), "Boltgun")
    Select(control(driver, "Type", weapon)).select_by_visible_text("ranged")
    for label, value in (("Count", "10"), ("Attacks", "2"), ("Skill", "3+"), ("Strength", "4")):
        fill(control(driver, label, weapon), value)
    fill(control(driver, "AP", weapon), "-1")
    fill(control(driver, "Damage", weapon), "1")
    target = section(driver, "Target")
    fill(control(driver, "Name", target), "Intercessor Squad")
    fill(control(driver, "Toughness", target), "4")
    keywords = section(driver, "Keywords", target)
    button(driver, "Add keyword", keywords).click()
    fill(control(driver, "Keyword 1", keywords), "Infantry")
    model = section(driver, "Model 1", section(driver, "Models", target))
    fill(control(driver, "Name", model), "Intercessor")
    fill(control(driver, "Count", model), "10")
    fill(control(driver, "Wounds", model), "2")
    fill(control(driver, "Save", model), "3+")
    for label in ("Evaluator", "Trials", "Seed", "Link to this scenario"):
        control(driver, label)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_boltguns_by_label(page: WebDriver, server: str, size: tuple[int, int]) -> None:
    page.set_window_size(*size)
    open_page(page, server)
    fill_boltguns(page)
    every_control_is_labelled(page)
    if size == PHONE:
        no_horizontal_scroll(page)
        button(page, "Run").click()
    else:
        control(page, "Save", section(page, "Model 1")).send_keys(Keys.ENTER)  # the keyboard runs it too
    assert result_text(page, "models-destroyed") == "1.417"
    # (1/6)^20: possible, so never shown as 0.0000 (the report's way).
    assert result_text(page, "p-unit-destroyed") == "<0.0001"
    assert "exact" in page.find_element("css selector", '[data-testid="how"]').text
    charts = page.find_elements("css selector", "#result .chart .plot-container")
    assert len(charts) >= 2, "the distributions of damage and models destroyed are charted"
    buttons = page.execute_script(
        "return [...document.querySelectorAll('#result .modebar-btn')].map((b) => b.dataset.title)"
    )
    assert "Download plot as a PNG" in buttons
    assert "Share chart..." not in buttons, "no button uploads a chart to Plotly's cloud"
    if size == PHONE:
        no_horizontal_scroll(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.save_screenshot(str(ARTIFACTS / f"boltguns-{size[0]}x{size[1]}.png"))


def test_on_a_phone_no_chart_title_or_legend_sits_under_another_part(page: WebDriver, server: str) -> None:
    page.set_window_size(*PHONE)
    open_page(page, server)
    fill_boltguns(page)
    button(page, "Run").click()
    assert result_text(page, "models-destroyed") == "1.417"
    clashes = page.execute_script(
        """
        const box = (e) => e && e.getBoundingClientRect();
        const meet = (a, b) => a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        return [...document.querySelectorAll('#result .chart')].flatMap((c) => {
          const title = box(c.querySelector('.gtitle')), toolbar = box(c.querySelector('.modebar'));
          const legend = box(c.querySelector('.legend')), axis = box(c.querySelector('.xtitle'));
          const found = [];
          if (!title || !toolbar || !legend || !axis) found.push(c.ariaLabel + ': a part is missing');
          if (meet(title, toolbar)) found.push(c.ariaLabel + ': the title under the toolbar');
          if (meet(legend, axis)) found.push(c.ariaLabel + ': the legend over the axis title');
          return found;
        });
        """
    )
    assert clashes == []
    chart = page.find_elements("css selector", "#result .chart")[0]
    page.execute_script("arguments[0].scrollIntoView()", chart)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    chart.screenshot(str(ARTIFACTS / "chart-phone.png"))


def test_shared_link_gives_the_same_numbers(page: WebDriver, server: str) -> None:
    open_page(page, server)
    fill_boltguns(page)
    Select(control(page, "Evaluator")).select_by_visible_text("Monte Carlo")
    fill(control(page, "Trials"), "20000")
    fill(control(page, "Seed"), "7")
    button(page, "Run").click()
    first = result_text(page, "models-destroyed")
    link = control(page, "Link to this scenario").get_attribute("value")
    assert link and "#v=1&s=" in link
    written = read_fragment(link.partition("#")[2])  # the page's link, read as the format says
    assert written["scenario"]["target"]["models"][0]["wounds"] == 2
    assert written["run"] == {"evaluator": "monte_carlo", "trials": "20000", "seed": "7"}
    page.get("about:blank")
    open_page(page, link)
    again = result_text(page, "models-destroyed")
    assert again == first
    assert "seed 7" in page.find_element("css selector", '[data-testid="how"]').text
    assert control(page, "Seed").get_attribute("value") == "7"


def test_user_text_is_shown_as_text(page: WebDriver, server: str) -> None:
    evil = "<img src=x onerror=\"document.title='pwned'\">"
    scenario = {
        "ruleset": "wh40k",
        "attacker": {"weapons": [{"name": evil, "attacks": "2", "skill": "3+", "strength": 4, "damage": "1"}]},
        "target": {
            "name": evil,
            "toughness": 4,
            "models": [{"name": evil, "count": 2, "wounds": 2, "save": "3+"}, {"name": "b" + evil, "wounds": 3}],
        },
    }
    open_page(page, server + fragment(scenario))
    result_text(page, "models-destroyed")
    assert page.title == "mathhammer"
    assert not page.find_elements("css selector", "img")
    groups = page.find_element("id", "result").text
    assert evil in groups, "the group names show as typed"
    assert control(page, "Name", section(page, "Target")).get_attribute("value") == evil


def test_the_keyboard_shows_where_it_is_on_the_file_buttons(page: WebDriver, server: str) -> None:
    open_page(page, server)
    # Tab from the Export button to the file input hidden behind "Import TOML file": its label shows the focus.
    page.execute_script("document.getElementById('export').focus()")
    ActionChains(page).send_keys(Keys.TAB).perform()
    assert page.switch_to.active_element.get_attribute("id") == "import"
    label = page.find_element("css selector", "label[for='import']")
    assert page.execute_script("return getComputedStyle(arguments[0]).outlineStyle", label) == "solid"
    ActionChains(page).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert page.switch_to.active_element.get_attribute("id") == "export"
    assert page.execute_script("return getComputedStyle(arguments[0]).outlineStyle", label) == "none"


def test_import_toml(page: WebDriver, server: str) -> None:
    open_page(page, server)
    control(page, "Import TOML file").send_keys(str(ROOT / "examples" / "boltguns.toml"))
    WebDriverWait(page, 30).until(lambda d: "Imported" in d.find_element("id", "status").text)
    assert control(page, "Toughness", section(page, "Target")).get_attribute("value") == "4"
    button(page, "Run").click()
    assert result_text(page, "models-destroyed") == "1.417"


def test_bad_field_shows_its_message(page: WebDriver, server: str) -> None:
    open_page(page, server)
    fill_boltguns(page)
    weapon = section(page, "Weapon 1")
    fill(control(page, "Skill", weapon), "9+")
    button(page, "Run").click()
    skill = control(page, "Skill", weapon)
    message = page.find_element("id", f"err-{skill.get_attribute('id')}")
    WebDriverWait(page, 30).until(lambda d: message.text)
    data = tomllib.loads((ROOT / "examples" / "boltguns.toml").read_text())
    data["attacker"]["weapons"][0]["skill"] = "9+"
    with pytest.raises(ScenarioError) as cli:
        scenario_from_data(data, registry=default_registry())
    assert cli.value.field == "attacker.weapons[0].skill"
    assert message.text == cli.value.message
    assert skill.get_attribute("aria-invalid") == "true"
    # A keyword the ruleset does not know is refused when the run compiles: its message goes by the list.
    fill(skill, "3+")
    keywords = section(page, "Keywords", weapon)
    button(page, "Add keyword", keywords).click()
    fill(control(page, "Keyword 1", keywords), "Sustained Hots 1")
    button(page, "Run").click()
    data["attacker"]["weapons"][0].update(skill="3+", keywords=["Sustained Hots 1"])
    with pytest.raises(ScenarioError) as compiled:
        registry = default_registry()
        compile_scenario(scenario_from_data(data, registry=registry), registry=registry)
    listed = keywords.find_element("css selector", ":scope > .error")
    WebDriverWait(page, 30).until(lambda d: listed.text)
    assert listed.text == compiled.value.message
    marked = page.execute_script("return [...document.querySelectorAll('[aria-invalid]')].map((e) => e.dataset.path)")
    assert marked == ["attacker.weapons[0].keywords[0]"]


def test_cancel_a_long_run(page: WebDriver, server: str) -> None:
    open_page(page, server)
    # A fight of several rounds: ten million trials take tens of seconds on one core.
    control(page, "Import TOML file").send_keys(str(ROOT / "examples" / "skilldice-fight.toml"))
    WebDriverWait(page, 30).until(lambda d: "Imported" in d.find_element("id", "status").text)
    Select(control(page, "Evaluator")).select_by_visible_text("Monte Carlo")
    fill(control(page, "Trials"), "10000000")
    button(page, "Run").click()
    WebDriverWait(page, 30).until(lambda d: "trials" in d.find_element("id", "progress-text").text)
    button(page, "Cancel").click()
    WebDriverWait(page, 30).until(lambda d: "Cancelled after" in d.find_element("id", "status").text)
    assert page.find_element("id", "result").get_attribute("hidden") is not None


def test_cancel_a_long_exact_run(
    page: WebDriver, server: str, slow_exact: Callable[[str], str], tmp_path: Path
) -> None:
    open_page(page, server)
    # Seconds of exact work, after which the exact evaluator would decline: only a cancel ends it as cancelled.
    scenario = tmp_path / "slow-exact.toml"
    scenario.write_text(slow_exact("Mob"), encoding="utf-8")
    control(page, "Import TOML file").send_keys(str(scenario))
    WebDriverWait(page, 30).until(lambda d: "Imported" in d.find_element("id", "status").text)
    Select(control(page, "Evaluator")).select_by_visible_text("Exact only")
    button(page, "Run").click()
    WebDriverWait(page, 30).until(lambda d: d.find_element("id", "progress-text").text == "evaluating exactly")
    button(page, "Cancel").click()
    WebDriverWait(page, 30).until(lambda d: d.find_element("id", "status").text != "Running…")
    assert page.find_element("id", "status").text == "Cancelled during the exact evaluation."
    assert page.find_element("id", "result").get_attribute("hidden") is not None


def test_t9a_from_the_generated_form(page: WebDriver, server: str) -> None:
    open_page(page, server)
    Select(control(page, "Ruleset")).select_by_visible_text("The Ninth Age (t9a)")
    attack = section(page, "Attack 1")
    fill_in(page, attack, Name="Greatswords", Models="5", Off="4", Str="5")
    with pytest.raises(AssertionError):
        control(page, "Aim", attack)  # read only for shooting attacks
    fill_in(page, section(page, "Target"), Name="Spearmen", Models="10", Def="3", Res="3", Arm="1")
    button(page, "Run").click()
    data = {
        "ruleset": "t9a",
        "attack": [{"name": "Greatswords", "models": 5, "Off": 4, "Str": 5}],
        "target": {"name": "Spearmen", "models": 10, "Def": 3, "Res": 3, "Arm": 1},
    }
    assert result_text(page, "models-destroyed") == _as_shown(data, trials=1_000_000, seed=0)


def test_skilldice_from_the_generated_form(page: WebDriver, server: str) -> None:
    open_page(page, server)
    Select(control(page, "Ruleset")).select_by_visible_text("d12 skill dice (Focus/Panic) (skilldice)")
    attacker = section(page, "Attacker")
    fill_in(page, attacker, Name="Vanguard", Models="5", Hp_per_model="2")
    fill_in(page, section(page, "Weapon 1", attacker), Name="Rifle", Models="5", Skill="3", Damage="D6")
    target = section(page, "Target")
    fill_in(page, target, Name="Raiders", Models="6", Hp_per_model="2", DC="15", Minor="2", Major="3")
    fill(control(page, "Trials"), "20000")
    fill(control(page, "Seed"), "5")
    button(page, "Run").click()
    shown = result_text(page, "models-destroyed")
    data = {
        "ruleset": "skilldice",
        "attacker": {
            "name": "Vanguard",
            "models": 5,
            "hp_per_model": 2,
            "weapons": [{"name": "Rifle", "models": 5, "skill": 3, "damage": "D6"}],
        },
        "target": {"name": "Raiders", "models": 6, "hp_per_model": 2, "dc": 15, "minor": 2, "major": 3},
    }
    assert shown == _as_shown(data, trials=20_000, seed=5)


def _as_shown(data: dict[str, Any], *, trials: int, seed: int) -> str:
    """Mean models destroyed as the page shows it, from the API the CLI calls."""
    registry = default_registry()
    result = evaluate(scenario_from_data(data, registry=registry), trials=trials, seed=seed, registry=registry)
    stage = result["models_destroyed"]
    return f"{stage.mean:.3f} ± {stage.se:.3f}" if result.evaluator == "monte_carlo" else f"{stage.mean:.3f}"


def test_explain_and_compare(page: WebDriver, server: str) -> None:
    open_page(page, server)
    fill_boltguns(page)
    fill(control(page, "Seed"), "3")
    button(page, "Explain one attack").click()
    WebDriverWait(page, 30).until(lambda d: "seed 3" in d.find_element("id", "explain-text").text)
    page.find_element("id", "tab-compare").click()
    library = control(page, "Profile library (TOML)")
    library.send_keys((ROOT / "examples" / "profiles.toml").read_text())
    fill(control(page, "Trials per pairing"), "2000")
    button(page, "Run comparison").click()
    WebDriverWait(page, 120).until(lambda d: d.find_elements("css selector", "#heatmap .plot-container"))
    assert "Attacker" in page.find_element("id", "compare-table").text
    # Scenarios instead of a library: the other tab's, and a file.
    control(page, "Profile library (TOML)").clear()
    button(page, "Add the scenario of the One attack tab").click()
    control(page, "Add scenario files").send_keys(str(ROOT / "examples" / "melee-charge.toml"))
    WebDriverWait(page, 30).until(lambda d: "melee-charge.toml" in d.find_element("id", "compare-files").text)
    button(page, "Run comparison").click()
    WebDriverWait(page, 120).until(lambda d: "melee-charge" in d.find_element("id", "compare-table").text)
    rows = page.find_elements("css selector", "#compare-table tbody tr")
    assert [r.text.split()[0] for r in rows] == ["this", "melee-charge"]


def test_keywords_and_rule_versions_round_trip(page: WebDriver, server: str) -> None:
    # Keywords, a weapon's own rule version and the scenario's edition, imported, shown, run and exported.
    open_page(page, server)
    control(page, "Import TOML file").send_keys(str(ROOT / "examples" / "keywords.toml"))
    WebDriverWait(page, 30).until(lambda d: "Imported" in d.find_element("id", "status").text)
    plasma = section(page, "Weapon 2")
    assert control(page, "Keyword 1", section(page, "Keywords", plasma)).get_attribute("value") == "Hazardous"
    versions = section(page, "Rules (optional)", plasma)
    assert control(page, "Rule", versions).get_attribute("value") == "Hazardous"
    assert control(page, "Version", versions).get_attribute("value") == "10e-2024"
    fill(control(page, "Trials"), "20000")
    fill(control(page, "Seed"), "2")
    button(page, "Run").click()
    data = tomllib.loads((ROOT / "examples" / "keywords.toml").read_text())
    assert result_text(page, "models-destroyed") == _as_shown(data, trials=20_000, seed=2)
    assert "Hazardous" in page.find_element("id", "result").text, "the rule versions that ran are listed"
    written = read_fragment((control(page, "Link to this scenario").get_attribute("value") or "").partition("#")[2])
    assert written["scenario"] == data


def headline(driver: WebDriver, label: str, timeout: float = 60) -> str:
    """The value the result's headline shows beside ``label`` (a chance such as ``P(the loser breaks)``)."""

    def shown(d: WebDriver) -> Any:
        return d.execute_script(
            """
            const facts = [...document.querySelectorAll('#result:not([hidden]) .headline > div')];
            const fact = facts.find((f) => f.querySelector('span').textContent === arguments[0]);
            return fact ? fact.querySelector('strong').textContent : false;
            """,
            label,
        )

    try:
        return WebDriverWait(driver, timeout).until(shown)  # type: ignore[no-any-return]
    except TimeoutException:
        raise AssertionError(
            f"no result shows {label!r}; status {driver.find_element('id', 'status').text!r}"
        ) from None


def test_a_t9a_close_combat_imported_and_run(page: WebDriver, server: str) -> None:
    """A T9A ``[combat]`` file imported into the form and run: the headline shows P(each side wins the
    round) and P(the loser breaks) as the API works them out exactly, and each side's HP lost."""
    open_page(page, server)
    control(page, "Import TOML file").send_keys(str(ROOT / "examples" / "t9a-combat.toml"))
    WebDriverWait(page, 30).until(lambda d: "Imported" in d.find_element("id", "status").text)
    button(page, "Run").click()
    registry = default_registry()
    scenario = scenario_from_data(tomllib.loads((ROOT / "examples" / "t9a-combat.toml").read_text()), registry=registry)
    exact = evaluate(scenario, registry=registry)
    assert exact.evaluator == "exact"
    for label in (
        "P(Greatswords wins the last round fought)",
        "P(Spearmen wins the last round fought)",
        "P(the loser breaks)",
    ):
        assert headline(page, label) == f"{exact.chance(label):.4f}"
    assert headline(page, "Spearmen: HP lost (wounds Greatswords caused) (mean)") == f"{exact['damage'].mean:.3f}"


def test_a_t9a_close_combat_entered_in_the_generated_form(page: WebDriver, server: str) -> None:
    """A close combat typed into the form, the offered Attack 1 left blank: one round of Knights against
    Guards, run exactly, the headline showing P(each side wins the round) and P(the loser breaks)."""
    open_page(page, server)
    Select(control(page, "Ruleset")).select_by_visible_text("The Ninth Age (t9a)")
    combat = section(page, "Combat (optional)")
    page.execute_script("arguments[0].open = true", combat)
    fill_in(page, combat, Rounds="1")
    unit = {"Models": "5", "Def": "3", "Res": "3", "Agi": "3", "Disc": "7"}
    attacker = section(page, "Attacker (optional)")
    page.execute_script("arguments[0].open = true", attacker)
    fill_in(page, attacker, Name="Knights", **unit)
    target = section(page, "Target")
    fill_in(page, target, Name="Guards", **unit)
    for unit_part in (attacker, target):
        strike = section(page, "Attack (optional)", unit_part)
        page.execute_script("arguments[0].open = true", strike)
        fill_in(page, strike, Name="Sword", Att="1", Off="3", Str="3")
    Select(control(page, "Evaluator")).select_by_visible_text("Exact only")
    button(page, "Run").click()
    side: dict[str, Any] = {"models": 5, "Def": 3, "Res": 3, "Agi": 3, "Disc": 7}
    data = {
        "ruleset": "t9a",
        "combat": {"rounds": 1},
        "attacker": {"name": "Knights", **side, "attack": {"name": "Sword", "Att": 1, "Off": 3, "Str": 3}},
        "target": {"name": "Guards", **side, "attack": {"name": "Sword", "Att": 1, "Off": 3, "Str": 3}},
    }
    registry = default_registry()
    exact = evaluate(scenario_from_data(data, registry=registry), evaluator="exact", registry=registry)
    for label in ("P(Knights wins the round)", "P(Guards wins the round)", "P(the loser breaks)"):
        assert headline(page, label) == f"{exact.chance(label):.4f}"
