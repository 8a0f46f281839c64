// The pages without a script of their own (/): the language switch, and on / whether the
// visitor's token (kept by the pages, common.js identity()) has the role each official's page
// needs (#officials: li[data-role]; the administrator's has every role).
import {setupLanguage, t} from "./i18n.js"
import {identity} from "./common.js"

const me = identity()

function renderOfficials() {
    for (const li of document.querySelectorAll("#officials li[data-role]")) {
        const role = li.dataset.role
        const mine = me.token && (me.role === role || me.role === "admin")
        li.classList.toggle("mine", !!mine)
        li.querySelector(".hint").textContent = mine ? t("signed in as {sub} ({role})", {sub: me.sub, role: t(me.role)})
            : t("sign in there with a token of role {role}", {role: t(role)})
    }
}

setupLanguage(renderOfficials)
renderOfficials()
