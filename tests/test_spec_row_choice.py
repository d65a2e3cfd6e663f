"""A ``spark: {row: ...}`` path through a ``choice`` (generator/spec/row_choices.py): one
Spark table for every case record, on the pcap fixture's four files (each byte order and
timestamp unit its own record), read by ``pcap_file`` with ``row: file.capture.packets``;
and the paths refused at load, each by file, line and key. The fixture is the newcomer's
first pcap spec, kept as ``pcap_by_cases.yaml`` (pcap.yaml now lets the magic choose the
byte order, ``endian: {switch_on: ...}``, so it has no choice to read through)."""

from __future__ import annotations

import pytest

from generator.emit.user_spec import import_spec, spec_model
from generator.spec.loader import load_text
from runtime.core.errors import SpecError
from tests.test_user_spec_pcap import HERE, MAGICS, capture, packets

GOOD = (HERE / "pcap_by_cases.yaml").read_text()

DOC = "    doc: A whole capture file; the magic picks the byte order and the timestamp unit.\n"
THROUGH = GOOD.replace(DOC, DOC + "    spark: {row: file.capture.packets}\n", 1)


@pytest.fixture(scope="module")
def pcap(tmp_path_factory):
    path = tmp_path_factory.mktemp("through") / "pcap.yaml"
    path.write_text(THROUGH)
    return import_spec(path)


def test_one_table_for_every_byte_order_and_unit(pcap):
    pytest.importorskip("pyspark")
    schema = pcap.spark_schema("pcap_file")
    assert schema == pcap.spark_schema("le_micro") == pcap.spark_schema("be_nano")
    for case in sorted(MAGICS):
        rows = list(pcap.iter_rows(capture(case), "pcap_file"))
        assert rows == list(pcap.iter_rows(capture(case), case)), case
        scale = 1000 if case.endswith("nano") else 1
        assert [(r[0], r[1], r[4], r[-1]) for r in rows] == [
            (s, u * scale, f, 1) for s, u, f in packets()
        ]


@pytest.mark.parametrize(
    "row, says",
    [
        ("file", "must name a repeated record field"),
        ("file.le_micro.capture.packets", "name the field after it, not the case 'le_micro'"),
        ("file.capture.packet", "'packet': a row path steps through record fields"),
    ],
)
def test_a_path_through_a_choice_that_cannot_be(tmp_path, row, says):
    text = GOOD.replace(DOC, DOC + f"    spark: {{row: {row}}}\n", 1)
    with pytest.raises(SpecError) as err:
        spec_model(load_text(text, tmp_path / "pcap.yaml", "pcap.yaml"))
    assert str(err.value).startswith("pcap.yaml:39: records.pcap_file.spark.row: "), str(err.value)
    assert says in str(err.value)


def test_cases_of_other_columns_are_refused(tmp_path):
    """le_micro's packets get a column the others lack: one table cannot hold them."""
    text = THROUGH.replace(
        '      - {name: orig_len, type: u32le, doc: "the packet\'s length on the wire"}\n',
        '      - {name: orig_len, type: u32le, doc: "the packet\'s length on the wire"}\n'
        '      - {name: extra, type: u8, doc: "x"}\n',
        1,
    )
    with pytest.raises(SpecError) as err:
        spec_model(load_text(text, tmp_path / "pcap.yaml", "pcap.yaml"))
    assert str(err.value).startswith("pcap.yaml:39: records.pcap_file.spark.row: "), str(err.value)
    assert "the cases of the choice 'file' give rows of other columns" in str(err.value)
