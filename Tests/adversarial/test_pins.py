"""Guessing PINs is limited and answered 429 with Retry-After (issue 25, item 9); PIN digits are
uniform (item 10)."""

from harness import Server, typed_error

ADMIN = ("admin", "admin")


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _pin_invitation(server: Server) -> tuple[str, dict]:
    """A started visitor, and a PIN invitation to a conversation of the default tenant."""
    visitor = server.start_visitor()
    conversation = server.start_conversation(visitor)
    invited = server.post(
        "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithPin", json={"conversationId": conversation["id"]}, auth=ADMIN
    )
    assert invited.status_code == 200, invited.text
    return visitor, invited.json()


def test_pin_guessing_is_limited_per_address_and_lifted_by_the_virtual_clock():
    with Server("--pin-attempts-per-address", "5", "--pin-attempt-window", "60") as server:
        visitor, invitation = _pin_invitation(server)
        pin = invitation["token"]
        guesses = [f"{n:06d}" for n in range(220) if f"{n:06d}" != pin][:200]
        statuses = []
        with server.client() as http:
            # The probe's rate: 200 wrong guesses as fast as one connection goes.
            for guess in guesses:
                statuses.append(http.post("/mobile/v1/invitations/redeem", json={"token": guess}, headers=_bearer(visitor)).status_code)
            assert statuses.count(404) == 5 and statuses.count(429) == 195, f"{statuses.count(404)} answered 404, {statuses.count(429)} 429"
            refused = http.post("/mobile/v1/invitations/redeem", json={"token": pin}, headers=_bearer(visitor))
            assert refused.status_code == 429, "the right PIN is refused too while the limit holds (the answer tells a guesser nothing)"
            assert 1 <= int(refused.headers["retry-after"]) <= 60
            assert typed_error(refused.content)["type"] == "RATE_LIMITED"
            # The limit runs on the server's clock: moving it past the Retry-After lifts it.
            wait = int(refused.headers["retry-after"])
            moved = http.post("/_mock/v1/clock", json={"advanceMillis": wait * 1000}, headers=server.control)
            assert moved.status_code == 200, moved.text
            joined = http.post("/mobile/v1/invitations/redeem", json={"token": pin}, headers=_bearer(visitor))
            assert joined.status_code == 200, joined.text


def test_pin_digits_are_uniform():
    # 1,500 PINs by renewal: 9,000 digits. With 9 degrees of freedom a fair draw exceeds 70 with a
    # chance of 1.5e-11; the old draw (the digit 5 at 12.8 %) scores about 185.
    with Server() as server:
        _, invitation = _pin_invitation(server)
        counts = [0] * 10
        with server.client(auth=ADMIN) as http:
            for _ in range(1500):
                renewed = http.post(f"/app/rest/v4/invitations/{invitation['id']}/renewPin")
                assert renewed.status_code == 200, renewed.text
                token = renewed.json()["token"]
                assert len(token) == 6 and token.isdigit(), token
                for digit in token:
                    counts[int(digit)] += 1
        expected = sum(counts) / 10
        chi_square = sum((count - expected) ** 2 / expected for count in counts)
        assert chi_square < 70, f"digit counts {counts}: chi-square {chi_square:.1f}"
