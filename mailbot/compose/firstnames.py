"""First names the Russian dictionary does not hold, by gender: Bulgarian names in
Cyrillic, and names in Latin script (English ones, and Slavic ones as they are
transliterated), all lower case.

    >>> "тодор" in MALE and "десислава" in FEMALE
    True
    >>> "maria" in FEMALE and "john" in MALE
    True
"""

from __future__ import annotations

__all__ = ["FEMALE", "MALE"]


def _words(text: str) -> list[str]:
    return text.split()


#: Men's first names.
MALE = frozenset(
    _words("""
    тодор стоян христо димитър петър георги иво ивайло красимир любомир пламен цветан
    цветомир бойко бойко божидар благой васил веселин венцислав владо въло гено добри
    драган дончо желязко живко здравко йордан калин каменко камен кирил коста кръстьо
    лъчезар мартин методи милен мирослав митко младен наско недялко никола огнян
    пенчо петко продан радко радослав райко румен светлин светослав спас стефан
    стойко стилиян тихомир тончо траян христофор цанко чавдар янко асен ангел атанас
    борислав бранимир валентин велизар велико генади гочо делян деян драгомир емил
    ефтим жеко захари златан иван илия йоан йосиф калоян лазар мирчо момчил начо
    нено нено пейо райчо ради сашо симеон славчо станимир станислав страхил тервел
    тошко филип хари цвятко явор ясен

    john james robert michael william david richard joseph thomas charles christopher
    daniel matthew anthony mark donald steven paul andrew joshua kenneth kevin brian
    george timothy ronald edward jason jeffrey ryan jacob gary nicholas eric jonathan
    stephen larry justin scott brandon benjamin samuel frank gregory raymond alexander
    patrick jack dennis jerry tyler aaron henry peter adam nathan zachary walter kyle
    harold carl arthur gerald roger keith jeremy lawrence sean christian albert joe
    ethan austin bruce ralph roy louis eugene wayne tom bob bill jim mike fred ben
    hans karl klaus jürgen wolfgang stefan uwe piotr pierre jacques luc
    giovanni marco luca paolo carlos jose juan pedro miguel magnus sven lars olaf
    ivan dmitry dmitri dmitriy sergey sergei alexey alexei aleksei andrey andrei
    mikhail nikolai nikolay vladimir yuri yury boris pavel igor oleg viktor victor
    anatoly anatoli konstantin vasily vasili grigory grigori evgeny evgeni yevgeny
    roman maxim maksim artem artyom denis ilya kirill stanislav vadim vyacheslav
    leonid arkady ruslan timur fyodor fedor semyon gennady valery valeri garry
    petar georgi dimitar todor stoyan hristo ivaylo krasimir lyubomir plamen tsvetan
    vesselin veselin kiril nikola radoslav rumen spas asen atanas boyan borislav
    emil kaloyan yordan zdravko
    """)
)

#: Women's first names.
FEMALE = frozenset(
    _words("""
    десислава цветелина гергана деница таня стефка радка йорданка величка венета
    веска виолета гинка донка зорница зоя калина красимира латинка лиляна маргарита
    мариела минка нели невена петя пенка ралица росица румяна славка снежана станка
    теодора тодорка цветана яна ясена албена бояна весела вяра галя гери диана жана
    жени златка ивелина илиана йоана камелия катя лора мила мирослава поля
    радост рая силвия соня таня христина цвета ясмина

    mary patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy
    lisa betty margaret sandra ashley kimberly emily donna michelle dorothy carol
    amanda melissa deborah stephanie rebecca sharon laura cynthia kathleen amy
    shirley angela helen anna ann anne brenda pamela nicole emma samantha katherine
    christine debra rachel catherine carolyn janet ruth maria heather diane virginia
    julie joyce victoria olivia christina lauren joan evelyn judith megan
    cheryl andrea hannah martha jacqueline frances gloria teresa kathryn sara janice
    alice madison doris abigail julia judy grace denise amber marilyn beverly
    danielle theresa sophia marie diana brittany natalie isabella charlotte rose
    alexis kayla jane lucy claire sophie eva eve ingrid greta monika monica petra
    elena yelena olga natalia natalya natasha tatiana tatyana svetlana irina ekaterina
    yekaterina katerina lyudmila ludmila galina valentina nadezhda lyubov vera marina
    oksana yulia yuliya ksenia kseniya daria darya anastasia polina alina alla
    larisa larissa zoya zhanna inna sofia sofya alexandra aleksandra veronika
    valeria margarita lidia lidiya tamara nina raisa antonina evgenia yevgenia
    desislava tsvetelina gergana denitsa tanya stefka radka yordanka rositsa
    rumyana snezhana teodora albena boyana kalina mariela neli nevena petya ralitsa
    """)
)
