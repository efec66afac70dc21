"""The one country-name table: real names, UN official names, codes, and what it cannot match."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.legislative.countries import (
    Country,
    CountryTable,
    NameMatch,
    default_country_table,
    name_key,
)
from assembly_gym.envs.legislative.sources import roll_call_data

TABLE_PATH = Path(__file__).parents[3] / "envs" / "legislative" / "countries.csv"

# The 193 UN member states under their UN official short names (UN M49 / un.org).
UN_MEMBER_STATES = (
    "Afghanistan", "Albania", "Algeria", "Andorra", "Angola", "Antigua and Barbuda",
    "Argentina", "Armenia", "Australia", "Austria", "Azerbaijan", "Bahamas", "Bahrain",
    "Bangladesh", "Barbados", "Belarus", "Belgium", "Belize", "Benin", "Bhutan",
    "Bolivia (Plurinational State of)", "Bosnia and Herzegovina", "Botswana", "Brazil",
    "Brunei Darussalam", "Bulgaria", "Burkina Faso", "Burundi", "Cabo Verde", "Cambodia",
    "Cameroon", "Canada", "Central African Republic", "Chad", "Chile", "China", "Colombia",
    "Comoros", "Congo", "Costa Rica", "Côte d’Ivoire", "Croatia", "Cuba", "Cyprus", "Czechia",
    "Democratic People's Republic of Korea", "Democratic Republic of the Congo", "Denmark",
    "Djibouti", "Dominica", "Dominican Republic", "Ecuador", "Egypt", "El Salvador",
    "Equatorial Guinea", "Eritrea", "Estonia", "Eswatini", "Ethiopia", "Fiji", "Finland",
    "France", "Gabon", "Gambia", "Georgia", "Germany", "Ghana", "Greece", "Grenada",
    "Guatemala", "Guinea", "Guinea-Bissau", "Guyana", "Haiti", "Honduras", "Hungary",
    "Iceland", "India", "Indonesia", "Iran (Islamic Republic of)", "Iraq", "Ireland", "Israel",
    "Italy", "Jamaica", "Japan", "Jordan", "Kazakhstan", "Kenya", "Kiribati", "Kuwait",
    "Kyrgyzstan", "Lao People's Democratic Republic", "Latvia", "Lebanon", "Lesotho",
    "Liberia", "Libya", "Liechtenstein", "Lithuania", "Luxembourg", "Madagascar", "Malawi",
    "Malaysia", "Maldives", "Mali", "Malta", "Marshall Islands", "Mauritania", "Mauritius",
    "Mexico", "Micronesia (Federated States of)", "Monaco", "Mongolia", "Montenegro",
    "Morocco", "Mozambique", "Myanmar", "Namibia", "Nauru", "Nepal",
    "Netherlands (Kingdom of the)", "New Zealand", "Nicaragua", "Niger", "Nigeria",
    "North Macedonia", "Norway", "Oman", "Pakistan", "Palau", "Panama", "Papua New Guinea",
    "Paraguay", "Peru", "Philippines", "Poland", "Portugal", "Qatar", "Republic of Korea",
    "Republic of Moldova", "Romania", "Russian Federation", "Rwanda", "Saint Kitts and Nevis",
    "Saint Lucia", "Saint Vincent and the Grenadines", "Samoa", "San Marino",
    "Sao Tome and Principe", "Saudi Arabia", "Senegal", "Serbia", "Seychelles", "Sierra Leone",
    "Singapore", "Slovakia", "Slovenia", "Solomon Islands", "Somalia", "South Africa",
    "South Sudan", "Spain", "Sri Lanka", "Sudan", "Suriname", "Sweden", "Switzerland",
    "Syrian Arab Republic", "Tajikistan", "Thailand", "Timor-Leste", "Togo", "Tonga",
    "Trinidad and Tobago", "Tunisia", "Türkiye", "Turkmenistan", "Tuvalu", "Uganda", "Ukraine",
    "United Arab Emirates", "United Kingdom of Great Britain and Northern Ireland",
    "United Republic of Tanzania", "United States of America", "Uruguay", "Uzbekistan",
    "Vanuatu", "Venezuela (Bolivarian Republic of)", "Viet Nam", "Yemen", "Zambia", "Zimbabwe",
)  # fmt: skip


@pytest.fixture(scope="module")
def table() -> CountryTable:
    return default_country_table()


# --------------------------------------------------------------------------------------
# The real roll-call names are the canonical names
# --------------------------------------------------------------------------------------


@pytest.mark.real_data
@pytest.mark.skipif(
    unvotes_dir() is None, reason="real data absent: set $ASSEMBLY_GYM_DATA or place ../shared/data"
)
def test_every_real_country_name_is_canonical(table: CountryTable) -> None:
    folder = unvotes_dir()
    assert folder is not None
    votes = pd.read_csv(
        folder / "un_votes.csv.gz", usecols=["country", "country_code"], dtype=str,
        keep_default_na=False,
    )  # fmt: skip
    pairs = votes.drop_duplicates()
    assert pairs["country"].nunique() == len(pairs) == 200  # one code per name
    match = table.match(pairs["country"])
    assert match.unmatched == ()
    assert all(name == canonical for name, canonical in match.canonical.items())
    for name, code in pairs.itertuples(index=False):
        assert table.get(name).iso2 == code  # including Namibia's "NA" and the empty codes
        if code:
            assert table.get(code).name == name
    assert set(pairs.loc[pairs["country_code"] == "", "country"]) == {
        "Yemen Arab Republic", "Federal Republic of Germany", "Zanzibar",
    }  # fmt: skip


# --------------------------------------------------------------------------------------
# UN official names, spellings and codes
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("United States of America", "United States"),
        ("UNITED STATES", "United States"),
        ("Netherlands (Kingdom of the)", "Netherlands"),
        ("NETHERLANDS (KINGDOM OF THE)", "Netherlands"),
        ("Türkiye", "Turkey"),
        ("TÜRKIYE", "Turkey"),
        ("Turkiye", "Turkey"),
        ("Côte d’Ivoire", "Côte d’Ivoire"),
        ("Cote d'Ivoire", "Côte d’Ivoire"),
        ("CÔTE D'IVOIRE", "Côte d’Ivoire"),
        ("Democratic People’s Republic of Korea", "North Korea"),
        ("Democratic People's Republic of Korea", "North Korea"),
        ("Republic of Korea", "South Korea"),
        ("Saint Vincent and the Grenadines", "St. Vincent & Grenadines"),
        ("St Vincent & Grenadines", "St. Vincent & Grenadines"),
        ("St.Lucia", "St. Lucia"),
        ("Bolivia (Plurinational State of)", "Bolivia"),
        ("Iran (Islamic Republic of)", "Iran"),
        ("Venezuela (Bolivarian Republic of)", "Venezuela"),
        ("Russian Federation", "Russia"),
        ("Union of Soviet Socialist Republics", "Russia"),
        ("United Kingdom of Great Britain and Northern Ireland", "United Kingdom"),
        ("Viet Nam", "Vietnam"),
        ("Sao Tome and Principe", "São Tomé & Príncipe"),
        ("Myanmar", "Myanmar (Burma)"),
        ("Democratic Republic of the Congo", "Congo - Kinshasa"),
        ("Congo", "Congo - Brazzaville"),
        ("Eswatini", "Eswatini"),
        ("Swaziland", "Eswatini"),
        ("  the Bahamas ", "Bahamas"),
        ("Guinea Bissau", "Guinea-Bissau"),
        ("FRA", "France"),
        ("fra", "France"),
        ("USA", "United States"),
        ("NA", "Namibia"),
        ("NAM", "Namibia"),
        ("DEU", "Germany"),
        ("PRK", "North Korea"),
    ],
)
def test_names_and_codes_map_to_canonical(table: CountryTable, name: str, canonical: str) -> None:
    assert table.canonical(name) == canonical
    assert table.find(name) == table.get(name) == table.get(canonical)
    assert name in table


def test_every_un_member_state_matches_a_distinct_country(table: CountryTable) -> None:
    assert len(UN_MEMBER_STATES) == 193
    match = table.match(UN_MEMBER_STATES)
    assert match.unmatched == ()
    assert len(set(match.canonical.values())) == 193
    assert table.match(name.upper() for name in UN_MEMBER_STATES).canonical == {
        name.upper(): canonical for name, canonical in match.canonical.items()
    }


def test_shipped_table_round_trips(table: CountryTable) -> None:
    with open(TABLE_PATH, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(table) == len(rows) == len(table.names)
    for row in rows:
        country = Country(row["name"], row["iso2"], row["iso3"])
        assert table.get(row["name"]) == country
        for alias in filter(None, (a.strip() for a in row["aliases"].split(";"))):
            assert table.get(alias) == country, alias
        for code in (row["iso2"], row["iso3"]):
            if code:
                assert table.get(code) == country
    codes = [c for row in rows for c in (row["iso2"], row["iso3"]) if c]
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Côte d’Ivoire", "cote d'ivoire"),
        ("St. Kitts & Nevis", "saint kitts and nevis"),
        ("St.Lucia", "saint lucia"),
        ("The Gambia", "gambia"),
        ("  Bosnia-Herzegovina ", "bosnia herzegovina"),
        ("Netherlands (Kingdom of the)", "netherlands (kingdom of the)"),
        ("East Timor", "east timor"),
    ],
)
def test_name_key(raw: str, key: str) -> None:
    assert name_key(raw) == key


# --------------------------------------------------------------------------------------
# What the table cannot match is reported, never dropped
# --------------------------------------------------------------------------------------


def test_match_reports_unmatched_names_without_dropping_them(table: CountryTable) -> None:
    names = ["Türkiye", "Atlantis", "France", "", "Atlantis", "Narnia", "FRA"]
    match = table.match(names)
    assert match.canonical == {"Türkiye": "Turkey", "France": "France", "FRA": "France"}
    assert match.unmatched == ("Atlantis", "", "Narnia")
    assert set(match.canonical) | set(match.unmatched) == set(names)
    assert match.report() == "3 names not matched: Atlantis; ; Narnia"
    assert table.match(["Chad"]).report() == "all 1 names matched"
    assert NameMatch().report() == "all 0 names matched"


def test_find_returns_none_for_unknown_or_empty(table: CountryTable) -> None:
    for name in ("Atlantis", "", "   ", "XX", "Germany, Federal Republic of"):
        assert table.find(name) is None
        assert name not in table
    assert table.find(None) is None  # type: ignore[arg-type]
    assert 3 not in table


def test_get_unknown_name_raises_with_a_hint(table: CountryTable) -> None:
    with pytest.raises(DataError, match=r"unknown country 'Frnace'; did you mean 'France'\?"):
        table.get("Frnace")
    with pytest.raises(DataError, match="did you mean 'United Kingdom'"):
        table.get("Untied Kingdom")
    with pytest.raises(
        DataError, match=r"did you mean 'Netherlands \(Kingdom of the\)' \(Netherlands\)\?"
    ):
        table.canonical("Netherland (Kingdom of the)")
    with pytest.raises(DataError, match=r"unknown country 'Qwzxv'$") as caught:
        table.canonical("Qwzxv")
    assert caught.value.field == "country"


# --------------------------------------------------------------------------------------
# Historical names resolve to the record the real data uses
# --------------------------------------------------------------------------------------

# A historical state with its own record in the roll-call data resolves to that record
# (Czechoslovakia, the two Germanys, the two Yemens before 1990, Yugoslavia, which the data
# keeps for Serbia and Montenegro too); a renamed state resolves to its present record
# (the Soviet Union votes as "Russia" in every session).
HISTORICAL_NAMES = {
    "Soviet Union": "Russia", "USSR": "Russia", "U.S.S.R.": "Russia",
    "Union of Soviet Socialist Republics": "Russia",
    "Byelorussian SSR": "Belarus", "Ukrainian SSR": "Ukraine",
    "Yugoslavia": "Yugoslavia", "Socialist Federal Republic of Yugoslavia": "Yugoslavia",
    "Serbia and Montenegro": "Yugoslavia",
    "Czechoslovakia": "Czechoslovakia", "Czech and Slovak Federal Republic": "Czechoslovakia",
    "East Germany": "German Democratic Republic", "GDR": "German Democratic Republic",
    "German Democratic Republic": "German Democratic Republic",
    "West Germany": "Federal Republic of Germany", "FRG": "Federal Republic of Germany",
    "Federal Republic of Germany": "Federal Republic of Germany",
    "Yemen Arab Republic": "Yemen Arab Republic", "North Yemen": "Yemen Arab Republic",
    "South Yemen": "Yemen People's Republic", "Democratic Yemen": "Yemen People's Republic",
    "Zanzibar": "Zanzibar", "Tanganyika": "Tanzania",
    "Zaire": "Congo - Kinshasa", "Congo (Léopoldville)": "Congo - Kinshasa",
    "Burma": "Myanmar (Burma)", "Union of Burma": "Myanmar (Burma)",
    "Upper Volta": "Burkina Faso", "Dahomey": "Benin", "Ceylon": "Sri Lanka",
    "Siam": "Thailand", "Kampuchea": "Cambodia", "Democratic Kampuchea": "Cambodia",
    "Khmer Republic": "Cambodia", "Swaziland": "Eswatini", "Rhodesia": "Zimbabwe",
    "Southern Rhodesia": "Zimbabwe", "Northern Rhodesia": "Zambia",
    "United Arab Republic": "Egypt", "Malagasy Republic": "Madagascar",
    "Western Samoa": "Samoa", "Ivory Coast": "Côte d’Ivoire", "East Timor": "Timor-Leste",
    "Central African Empire": "Central African Republic", "Persia": "Iran",
    "Transjordan": "Jordan", "Gold Coast": "Ghana", "British Honduras": "Belize",
}  # fmt: skip

# The code each historical record has in the real data ("" where the data has none).
HISTORICAL_CODES = {
    "Russia": "RU", "Yugoslavia": "YU", "Czechoslovakia": "CS",
    "German Democratic Republic": "DD", "Federal Republic of Germany": "",
    "Yemen Arab Republic": "", "Yemen People's Republic": "YD", "Zanzibar": "",
}  # fmt: skip


@pytest.mark.parametrize(("name", "canonical"), HISTORICAL_NAMES.items())
def test_historical_names_resolve(table: CountryTable, name: str, canonical: str) -> None:
    assert table.canonical(name) == canonical
    assert table.canonical(name.upper()) == canonical


def test_historical_records_keep_the_codes_of_the_real_data(table: CountryTable) -> None:
    assert {name: table.get(name).iso2 for name in HISTORICAL_CODES} == HISTORICAL_CODES
    assert table.get("DD") == table.get("East Germany") != table.get("DE")
    assert table.get("YU") == table.get("Serbia and Montenegro") != table.get("RS")


@pytest.mark.real_data
@pytest.mark.skipif(
    unvotes_dir() is None, reason="real data absent: set $ASSEMBLY_GYM_DATA or place ../shared/data"
)
def test_historical_names_resolve_to_real_records() -> None:
    data = roll_call_data("unvotes")
    for name, canonical in HISTORICAL_NAMES.items():
        assert data.country_names[data.country_index(name)] == canonical, name
    # (test_every_real_country_name_is_canonical checks the codes against the files)


def test_a_misspelt_historical_name_suggests_it(table: CountryTable) -> None:
    with pytest.raises(
        DataError, match=r"unknown country 'Sovjet Union'; did you mean 'Soviet Union' \(Russia\)"
    ):
        table.get("Sovjet Union")
    assert table.did_you_mean("Upper Volt") == "; did you mean 'Upper Volta' (Burkina Faso)?"
    assert table.did_you_mean("Checkoslovakia").startswith("; did you mean 'Czechoslovakia',")
    assert table.did_you_mean("Zair").startswith("; did you mean 'Zaire' (Congo - Kinshasa)")
    assert table.did_you_mean("Qwzxv") == ""


def test_did_you_mean_among_the_names_of_one_data_set(table: CountryTable) -> None:
    among = ["Russia", "Slovenia", "Country 001"]
    assert table.did_you_mean("Sovjet Union", among).startswith(
        "; did you mean 'Soviet Union' (Russia)"
    )
    assert table.did_you_mean("Country 01", among) == "; did you mean 'Country 001'?"
    assert table.did_you_mean("Frnace", among) == ""  # France is not among them
    # a record named otherwise in the data is suggested under the data's name
    assert table.did_you_mean("Sovjet Union", ["USSR"]) == "; did you mean 'Soviet Union' (USSR)?"


# --------------------------------------------------------------------------------------
# Building a table: every inconsistency is a DataError
# --------------------------------------------------------------------------------------


def test_table_rejects_duplicates_and_ambiguous_aliases() -> None:
    with pytest.raises(DataError, match="duplicate country 'A'"):
        CountryTable([(Country("A"), []), (Country("A"), [])])
    with pytest.raises(DataError, match="'congo' would name both 'Congo - B' and 'Zaire'"):
        CountryTable([(Country("Congo - B"), ["Congo"]), (Country("Zaire"), ["Congo"])])
    with pytest.raises(DataError, match="'fr' would name both"):
        CountryTable([(Country("France", "FR"), []), (Country("Fr"), [])])
    table = CountryTable(
        [(Country("Aa", "AA", "AAA"), ["Alpha", "Альфа"]), (Country("Bb"), ["Бб"])]
    )
    assert table.canonical("alpha") == table.canonical("aaa") == "Aa"
    assert table.find("Бета") is None  # names without Latin letters have no key: no collision


def test_from_csv_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "countries.csv"
    path.write_text("name,iso2,iso3,aliases\nFrance,FR,FRA,\n,XX,XXX,\n", encoding="utf-8")
    with pytest.raises(DataError, match="countries.csv, line 3, field 'name': empty"):
        CountryTable.from_csv(path)
    path.write_text("name,iso2,aliases\nFrance,FR,\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 2, field 'iso3': missing field"):
        CountryTable.from_csv(path)
    path.write_text("name,iso2,iso3,aliases\nA,,,X\nB,,,X\n", encoding="utf-8")
    with pytest.raises(DataError, match="countries.csv, field 'aliases': 'x' would name both"):
        CountryTable.from_csv(path)
    with pytest.raises(DataError, match="cannot read"):
        CountryTable.from_csv(tmp_path / "missing.csv")
    path.write_text("name,iso2,iso3,aliases\nFrance,FR,FRA,Gaul;  ;République française\n",
                    encoding="utf-8")  # fmt: skip
    assert CountryTable.from_csv(path).canonical("Republique Francaise") == "France"
